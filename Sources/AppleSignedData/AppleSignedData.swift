/// Apple's signed data and subrecon's App Store credentials, without I/O:
/// - `JWS/`: compact JWS decoding (base64url, strict header JSON) and ES256 signatures;
/// - `Trust/`: the x5c chain to a pinned root with Apple's marker OIDs, and its cache;
/// - `JWT/`: the App Store Server API bearer token (ES256, reused until shortly before it expires);
/// - `AppReceipt/`: transaction ids read from a PKCS#7 app receipt (no verification: Apple's signed
///   answer is what is trusted).
public enum AppleSignedData {}
