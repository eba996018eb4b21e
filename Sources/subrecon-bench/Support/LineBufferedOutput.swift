#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
@preconcurrency import Musl
#endif

/// Figures appear as they are measured even when stdout is a pipe or a file (`bench.sh | tee`).
enum LineBufferedOutput {
    static func enable() {
        setvbuf(stdout, nil, _IOLBF, 0)
    }
}
