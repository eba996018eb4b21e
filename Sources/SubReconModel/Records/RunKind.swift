/// Which command a run was: the nightly batch or one user's re-verification.
public enum RunKind: String, Sendable, Codable {
    case nightly
    case user
}

/// How a run ended (`report runs`, column `status`).
public enum RunStatus: String, Sendable, Codable {
    case running, completed, interrupted, aborted
}

/// What happened to one receipt in one run (`report run-items`, column `outcome`).
public enum RunItemOutcome: String, Sendable, Codable, CaseIterable {
    case updated, unchanged, invalid
    case accountGone = "account_gone"
    case failed, skipped
}
