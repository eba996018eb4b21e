import SubReconModel

/// One transaction's events, numbered: each stream's `seq` continues from what the store returns
/// for it, and positions follow in the order the events were drafted. Both stores write these rows.
package struct EventBatch: Sendable {
    /// A subscription's stream of events: `seq` counts within it. The app is no part of it: an
    /// original transaction belongs to one app, and a write that does not know the app (a receipt
    /// naming none) must number on from one that does (a notification).
    package struct StreamKey: Hashable, Sendable {
        package var userID: String
        package var originalTransactionID: String
    }

    /// An `events` row as inserted.
    package struct Row: Sendable {
        package var position: Int64
        package var draft: EventDraft
        package var seq: Int64?
        package var body: String

        package var arguments: [SQLArgument] {
            [
                .integer(position), .text(draft.id), .text(draft.type.rawValue), .integer(draft.createdAtMs),
                .text(draft.app ?? ""), .text(draft.userID), .text(draft.originalTransactionID ?? ""), SQLArgument(seq),
                .text(draft.source.rawValue), .text(body), .text("pending"), .integer(0), .integer(draft.createdAtMs),
            ]
        }
    }

    package private(set) var drafts: [EventDraft] = []
    /// Streams in the order they first appear, with how many of the batch's events each gets.
    package private(set) var streams: [(key: StreamKey, count: Int64)] = []
    private var streamIndex: [StreamKey: Int] = [:]

    package init() {}

    package var isEmpty: Bool { drafts.isEmpty }

    package mutating func append(_ draft: EventDraft) {
        drafts.append(draft)
        guard let key = Self.stream(of: draft) else { return }
        if let index = streamIndex[key] {
            streams[index].count += 1
        } else {
            streamIndex[key] = streams.count
            streams.append((key, 1))
        }
    }

    /// The events of `update`'s changes, from `origin`, for `app`.
    package mutating func append(changesOf update: ReceiptUpdate, origin: EventOrigin, app: String?) {
        for change in update.subscriptionChanges {
            append(EventDraft(change: change, origin: origin, app: app, id: EventID.make(), createdAtMs: change.recordedAt))
        }
    }

    /// The rows, given each stream's last `seq` after this batch's increment and the last position
    /// allocated to it (the batch holds `lastPosition - count + 1 … lastPosition`).
    package func rows(lastSeq: [StreamKey: Int64], lastPosition: Int64) -> [Row] {
        var next: [StreamKey: Int64] = [:]
        for (key, count) in streams { next[key] = (lastSeq[key] ?? count) - count + 1 }
        var position = lastPosition - Int64(drafts.count)
        return drafts.map { draft in
            position += 1
            var seq: Int64? = nil
            if let key = Self.stream(of: draft), let value = next[key] {
                seq = value
                next[key] = value + 1
            }
            return Row(position: position, draft: draft, seq: seq, body: draft.body(seq: seq, position: position))
        }
    }

    /// `user.forgotten` belongs to no subscription: no stream, no `seq`.
    private static func stream(of draft: EventDraft) -> StreamKey? {
        guard let otid = draft.originalTransactionID else { return nil }
        return StreamKey(userID: draft.userID, originalTransactionID: otid)
    }
}
