import SubReconModel

/// Matches Apple's counts against the ledger's, key by key (`report apple-parity`).
///
/// Only days with an Apple report stored are compared: keys on other days are dropped from both
/// sides (the ledger alone would make every row "missing at Apple"). A difference on one day that
/// is cancelled by an opposite difference of the same key (all fields but the day) within
/// `toleranceDays` is a day-boundary shift, not an error. Cancelling is greedy and deterministic:
/// days ascending, for each the nearest day first (the earlier on a tie), each unit used once.
public enum SalesParityMatcher {
    public static let defaultToleranceDays = 1

    public static func match(
        apple: [SalesParityKey: Int64], ledger: [SalesParityKey: Int64], comparedDays: Set<CalendarDay>,
        toleranceDays: Int = defaultToleranceDays
    ) -> [SalesParityRow] {
        var keys = Set<SalesParityKey>()
        for key in apple.keys where comparedDays.contains(key.day) && apple[key] != 0 { keys.insert(key) }
        for key in ledger.keys where comparedDays.contains(key.day) && ledger[key] != 0 { keys.insert(key) }

        // Remaining differences by key without its day, then by day.
        var remaining: [SalesParityKey: [CalendarDay: Int64]] = [:]
        for key in keys {
            let difference = (apple[key] ?? 0) - (ledger[key] ?? 0)
            if difference != 0 { remaining[groupKey(key), default: [:]][key.day] = difference }
        }
        var shifted: [SalesParityKey: Int64] = [:]
        let tolerance = Int64(max(0, toleranceDays))
        if tolerance > 0 {
            for group in remaining.keys.sorted() {
                guard var byDay = remaining[group] else { continue }
                for day in byDay.keys.sorted() {
                    let candidates = byDay.keys
                        .filter { $0 != day && abs(day.days(to: $0)) <= tolerance }
                        .sorted { lhs, rhs in
                            let (l, r) = (abs(day.days(to: lhs)), abs(day.days(to: rhs)))
                            return l != r ? l < r : lhs < rhs
                        }
                    for other in candidates {
                        guard let here = byDay[day], here != 0, let there = byDay[other], there != 0,
                            (here > 0) != (there > 0)
                        else { continue }
                        let amount = min(abs(here), abs(there))
                        byDay[day] = here > 0 ? here - amount : here + amount
                        byDay[other] = there > 0 ? there - amount : there + amount
                        shifted[group.on(day), default: 0] += amount
                        shifted[group.on(other), default: 0] += amount
                    }
                }
            }
        }

        return keys.sorted().map { key in
            let appleUnits = apple[key] ?? 0
            let ledgerUnits = ledger[key] ?? 0
            let difference = appleUnits - ledgerUnits
            let shiftedUnits = shifted[groupKey(key).on(key.day)] ?? 0
            let status: SalesParityStatus =
                if difference == 0 { .match }
                else if shiftedUnits == abs(difference) { .shifted }
                else if difference > 0 { .missingInLedger }
                else { .missingAtApple }
            return SalesParityRow(
                key: key, appleUnits: appleUnits, ledgerUnits: ledgerUnits, status: status, shiftedUnits: shiftedUnits)
        }
    }

    /// The key with its day set to a fixed value: the group shifts are looked for in.
    private static func groupKey(_ key: SalesParityKey) -> SalesParityKey { key.on(CalendarDay(ordinal: 0)) }
}
