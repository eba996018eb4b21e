/// Reads root certificates from PEM text: every `CERTIFICATE` block, whatever its line length
/// (openssl writes 64 characters, other tools 76), text between blocks ignored.
enum RootCertificatePEM {
    private static let beginPrefix = "-----BEGIN "
    private static let certificateBegin = "-----BEGIN CERTIFICATE-----"
    private static let certificateEnd = "-----END CERTIFICATE-----"

    /// The DER bytes of each certificate block, in order.
    static func derCertificates(in text: String) throws(RootCertificateError) -> [[UInt8]] {
        var certificates: [[UInt8]] = []
        var body: String?
        var blockIndex = 0
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let line = rawLine.trimmingWhitespace()
            if var open = body {
                if line == certificateEnd {
                    guard let der = Base64.decode(open) else { throw .notACertificate(index: blockIndex) }
                    certificates.append(der)
                    body = nil
                    blockIndex += 1
                } else {
                    open += line
                    body = open
                }
            } else if line == certificateBegin {
                body = ""
            } else if line.hasPrefix(beginPrefix) {
                throw .notACertificate(index: blockIndex)
            }
        }
        guard body == nil else { throw .notPEM }
        guard !certificates.isEmpty else { throw .notPEM }
        return certificates
    }
}

extension Substring {
    fileprivate func trimmingWhitespace() -> Substring {
        let start = firstIndex { !$0.isWhitespace } ?? endIndex
        let end = lastIndex { !$0.isWhitespace }.map(index(after:)) ?? start
        return self[start..<end]
    }
}
