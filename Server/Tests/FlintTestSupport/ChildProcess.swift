import Foundation
import NIOConcurrencyHelpers
#if canImport(Glibc)
import Glibc
#endif

/// A child process the tests start (Python helpers, headless Chromium, the `flint` binary), spawned with
/// `posix_spawn` directly. Foundation's `Process.run()` crashed now and then in the parallel suite (inside
/// its own copying, with many threads and descriptors about), so the tests do not use it; the environment
/// comes from a snapshot taken once, never from `environ` while other threads run.
public final class ChildProcess: Sendable {
    /// Where a child's standard stream goes.
    public enum Stream: Sendable {
        /// `/dev/null`.
        case null
        /// A pipe whose other end the parent keeps (`output`, `errors`, `input`).
        case pipe
        /// A file, created or truncated.
        case file(String)
        /// Standard error only: wherever standard output goes.
        case standardOutput
    }

    /// The test process's environment when first asked for.
    public static let environment: [String: String] = ProcessInfo.processInfo.environment

    public let pid: pid_t
    /// The parent's ends of the `.pipe` streams.
    public let input: FileHandle?
    public let output: FileHandle?
    public let errors: FileHandle?

    private init(pid: pid_t, input: FileHandle?, output: FileHandle?, errors: FileHandle?) {
        self.pid = pid
        self.input = input
        self.output = output
        self.errors = errors
    }

    /// Starts `executable` (a path, or a name looked up in `PATH`) with `arguments`.
    public static func launch(_ executable: String, _ arguments: [String], environment: [String: String] = environment,
                              input: Stream = .null, output: Stream = .pipe, errors: Stream = .pipe) throws -> ChildProcess {
        try launchLock.withLock {
            try spawn(executable, arguments, environment: environment, streams: [input, output, errors])
        }
    }

    /// One launch at a time, so a pipe made for one child is close-on-exec before any other child starts.
    private static let launchLock = NIOLock()

    private static func spawn(_ executable: String, _ arguments: [String], environment: [String: String],
                              streams: [Stream]) throws -> ChildProcess {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var childEnds: [Int32] = []
        var parentEnds: [Int32?] = []
        for (target, stream) in zip(Int32(0)..., streams) {
            switch stream {
            case .null:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
                parentEnds.append(nil)
            case .file(let path):
                posix_spawn_file_actions_addopen(&actions, target, path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
                parentEnds.append(nil)
            case .standardOutput:
                posix_spawn_file_actions_adddup2(&actions, 1, 2)
                parentEnds.append(nil)
            case .pipe:
                var ends: [Int32] = [0, 0]
                guard pipe(&ends) == 0 else { throw ChildProcessError(description: "pipe: \(errno)") }
                // Close-on-exec, so no other child inherits them (launches are serialized, see `launchLock`).
                ends.forEach { _ = fcntl($0, F_SETFD, FD_CLOEXEC) }
                // The child's end is ends[1] for its output, ends[0] for its input.
                let (child, parent) = target == 0 ? (ends[0], ends[1]) : (ends[1], ends[0])
                posix_spawn_file_actions_adddup2(&actions, child, target)
                childEnds.append(child)
                parentEnds.append(parent)
            }
        }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        // A child starts with no signal blocked and the common ones at their defaults: it inherits the spawning
        // thread's mask and ignored signals otherwise, and a server in the tests' process blocks SIGTERM (Apache
        // then never hears `terminate`).
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGQUIT, SIGUSR1, SIGUSR2] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid = pid_t()
        let status = posix_spawnp(&pid, executable, &actions, &attributes, argv, envp)
        childEnds.forEach { close($0) }
        guard status == 0 else {
            parentEnds.compactMap { $0 }.forEach { close($0) }
            throw ChildProcessError(description: "cannot start \(executable): error \(status)")
        }
        func handle(_ fd: Int32?) -> FileHandle? { fd.map { FileHandle(fileDescriptor: $0, closeOnDealloc: true) } }
        return ChildProcess(pid: pid, input: handle(parentEnds[0]), output: handle(parentEnds[1]), errors: handle(parentEnds[2]))
    }

    /// Sends SIGTERM.
    public func terminate() {
        kill(pid, SIGTERM)
    }

    /// Waits (on a thread of its own) for the child to exit; its exit status, or 128 + the signal that killed it.
    public func wait() async -> Int32 {
        let pid = pid
        return await BlockingWork.run {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
            let signal = status & 0x7F
            return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
        }
    }

    /// Reads the piped output and errors to their ends, then waits for the exit.
    public func finish() async -> (status: Int32, output: String, errors: String) {
        async let outputText = Self.readToEnd(output)
        async let errorText = Self.readToEnd(errors)
        let (text, errorsRead) = await (outputText, errorText)
        return (await wait(), text, errorsRead)
    }

    private static func readToEnd(_ handle: FileHandle?) async -> String {
        guard let handle else { return "" }
        return await BlockingWork.run { String(decoding: handle.readDataToEndOfFile(), as: UTF8.self) }
    }
}

public struct ChildProcessError: Error, CustomStringConvertible {
    public let description: String
}

/// Runs blocking work (reading a child's output to the end, waiting for it to exit) on a thread of its own.
/// Not on `DispatchQueue.global()`: on Linux that pool also runs Swift concurrency's tasks and has about
/// one thread per core, so a few blocked readers starve every server in the test process.
public enum BlockingWork {
    /// Starts `work` on a new thread and returns at once.
    public static func detach(_ work: @escaping @Sendable () -> Void) {
        let thread = Thread { work() }
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// Runs `work` on a new thread and waits (without blocking the caller's thread) for its result.
    public static func run<Value: Sendable>(_ work: @escaping @Sendable () -> Value) async -> Value {
        await withCheckedContinuation { continuation in
            detach { continuation.resume(returning: work()) }
        }
    }
}
