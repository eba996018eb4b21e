/// The payload read just far enough for the trust decision (check 4 of ``SignedDataVerifier``):
/// a JSON object without duplicate members and with an integer `signedDate` (Unix ms) that is not
/// in the future. Everything else in it is the caller's business.
struct SignedPayload: Sendable {
    /// How far a signedDate may lie ahead of our clock.
    static let allowedClockSkewMs: Int64 = 5 * 60 * 1000

    let signedDateMs: Int64

    init(_ bytes: [UInt8], nowMs: Int64) throws(SignedDataError) {
        let value = try StrictJSON.member(
            "signedDate", of: bytes, duplicate: SignedDataError.duplicatePayloadMember, notObject: .payloadNotJSONObject)
        guard let signedDate = value?.int64Value, signedDate >= 0 else { throw .missingSignedDate }
        let (latest, overflow) = nowMs.addingReportingOverflow(Self.allowedClockSkewMs)
        guard overflow || signedDate <= latest else {
            throw .signedDateInFuture(signedDateMs: signedDate, nowMs: nowMs)
        }
        signedDateMs = signedDate
    }
}
