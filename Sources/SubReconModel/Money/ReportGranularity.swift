/// `--by`: the length of the money reports' periods, UTC calendar months or days.
public enum ReportGranularity: String, Sendable, CaseIterable {
    case month
    case day
}
