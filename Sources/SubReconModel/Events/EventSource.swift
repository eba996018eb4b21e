/// What wrote the change an event reports (the body's `source`).
public enum EventSource: String, Sendable, CaseIterable {
    /// The nightly run (`subrecon run`).
    case run
    /// `subrecon user`: an operator re-verified one user.
    case user
    /// `POST /v1/purchases` of `subrecon serve`.
    case purchase
    /// A server notification: the receiver, `notifications import` or `backfill`.
    case notification
    /// `subrecon link`.
    case link
    /// The other user's event when a run finds, on one user's receipt, a purchase carrying another's token.
    case tokenLink = "token_link"
    /// `subrecon forget`.
    case forget
    /// A refund request Apple sent, answered or resolved.
    case refundRequest = "refund_request"
}
