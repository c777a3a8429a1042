import CLinux
import Foundation
import Glibc

/// Runs a program to its end with `posix_spawn` and `waitpid`, for tests.
///
/// Foundation's `Process.waitUntilExit` learns of a child's exit when a socket the child inherited
/// is closed (swift-corelibs-foundation#4795). A program spawned meanwhile by another test
/// that inherits that socket (a PostgreSQL server started by `scripts/pg-cluster` lived for the
/// whole run) keeps it open, and the waiting test hangs with its child unreaped. So the tests'
/// children are spawned here, with every descriptor from 3 up closed in the child
/// (`posix_spawn_file_actions_addclosefrom_np`), and reaped by pid.
public enum SpawnedProgram {
    /// Runs `executable` with `arguments` and waits for it.
    ///
    /// - Parameters:
    ///   - executable: the program's path (not searched in `PATH`).
    ///   - arguments: argv[1…].
    ///   - environment: the whole environment (`nil`: this process's).
    ///   - standardOutput: the file that receives stdout (created or truncated), or `nil` to
    ///     inherit this process's.
    ///   - standardError: the file that receives stderr (may be the same path as
    ///     `standardOutput`: both then go to one file), or `nil` to inherit.
    /// - Returns: the exit status (0–255), 128 + the signal's number when a signal ended it, or
    ///   -1 with `errno`'s text when it could not be spawned.
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        standardOutput: String?, standardError: String?
    ) -> (status: Int32, failure: String?) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        if let standardOutput {
            posix_spawn_file_actions_addopen(&actions, 1, standardOutput, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        }
        if let standardError {
            if standardError == standardOutput {
                posix_spawn_file_actions_adddup2(&actions, 1, 2)
            } else {
                posix_spawn_file_actions_addopen(&actions, 2, standardError, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            }
        }
        posix_spawn_file_actions_addclosefrom_np(&actions, 3)
        let variables = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = variables.map { strdup($0) } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        guard spawned == 0 else { return (-1, "posix_spawn \(executable): \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        // WIFEXITED/WEXITSTATUS: the low 7 bits are the signal, the next 8 the exit status.
        return (status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f), nil)
    }
}
