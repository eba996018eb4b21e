import SubReconModel

/// What applying a notification did to the first receipt (its outcome) and to all (changes).
package struct NotificationApplyResult {
    package var outcome: NotificationOutcome = .applied
    package var changes = 0
}
