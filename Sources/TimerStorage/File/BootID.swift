import Foundation
import TimerSystem

/// Which boot of the machine this is, to tell a daemon restart from a reboot.
public enum BootID {
    /// The environment variable that overrides the boot id. A test hook: end-to-end tests set it to
    /// simulate a reboot without rebooting. Not meant for production use.
    static let overrideVariable = "TIMERD_BOOT_ID"

    /// `$TIMERD_BOOT_ID` if set, else `/proc/sys/kernel/random/boot_id` (a random UUID the kernel
    /// picks at each boot; man random(4)), else `nil` when neither is readable.
    ///
    /// - Returns: the boot id, or `nil`.
    public static func current() -> String? {
        if let override = ProcessEnvironment.value(overrideVariable) { return override }
        guard let bytes = try? FileSystem.readAll("/proc/sys/kernel/random/boot_id", maximumBytes: 4_096) else {
            return nil
        }
        let trimmed = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : trimmed
    }
}
