import SubReconStore

/// Runs `body`, then awaits `teardown` whether the body returned or threw. The structured form of
/// `defer { Task { await x.close() } }`, whose close was an unawaited task that could outlive the
/// test (a store still open, a simulator still listening, while the next test starts).
@discardableResult
func withTeardown<T>(
    isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T, teardown: () async -> Void
) async throws -> T {
    let result: T
    do {
        result = try await body()
    } catch {
        await teardown()
        throw error
    }
    await teardown()
    return result
}

extension TestWorld {
    /// `body` with this world, then `close()`, awaited whether the body returned or threw:
    /// `try await TestWorld.make().closing { world in … }`.
    @discardableResult
    func closing<T>(isolation: isolated (any Actor)? = #isolation, _ body: (TestWorld) async throws -> T) async throws -> T {
        try await withTeardown({ try await body(self) }, teardown: close)
    }
}

extension SubscriptionStore {
    /// `body` with this store, then `close()`, awaited whether the body returned or threw.
    @discardableResult
    func closing<T>(isolation: isolated (any Actor)? = #isolation, _ body: (Self) async throws -> T) async throws -> T {
        try await withTeardown({ try await body(self) }, teardown: close)
    }
}
