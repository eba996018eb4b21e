/// What `subrecon --version` prints; webhook requests send it as `User-Agent: subrecon/<version>`.
public enum SubReconVersion {
    public static let text = "0.1.0"
    public static var userAgent: String { "subrecon/" + text }
}
