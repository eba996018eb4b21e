import X509

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One certificate's validity period in Unix milliseconds, kept with a cached chain so every
/// later payload's signedDate is checked against it.
struct ValidityWindow: Equatable, Sendable {
    let role: SignedDataError.CertificateRole
    let notBeforeMs: Int64
    let notAfterMs: Int64

    init(_ certificate: Certificate, role: SignedDataError.CertificateRole) {
        self.role = role
        // Round inwards so the window never grows (certificate times are whole seconds anyway).
        notBeforeMs = Int64((certificate.notValidBefore.timeIntervalSince1970 * 1000).rounded(.up))
        notAfterMs = Int64((certificate.notValidAfter.timeIntervalSince1970 * 1000).rounded(.down))
    }

    /// RFC 5280 §4.1.2.5: valid from notBefore through notAfter, both included.
    func contains(_ unixMs: Int64) -> Bool {
        notBeforeMs <= unixMs && unixMs <= notAfterMs
    }

    func error(signedDateMs: Int64) -> SignedDataError {
        .certificateNotValidAtSignedDate(role, notBeforeMs: notBeforeMs, notAfterMs: notAfterMs, signedDateMs: signedDateMs)
    }
}

extension Date {
    init(unixMilliseconds: Int64) {
        self.init(timeIntervalSince1970: Double(unixMilliseconds) / 1000)
    }
}
