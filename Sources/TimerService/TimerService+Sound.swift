import Countdown
import TimerModel
import TimerProtocol

/// `timer.start`'s `sound` parameter (docs/actions.md "Sound", docs/protocol.md): a sound file the
/// daemon plays when the timer ends and at every ring of a ringing timer.
extension TimerService {
    /// What `"sound"` asks for.
    package enum SoundChoice: Sendable, Hashable {
        /// `"sound": true`: the daemon's default sound (``TimerService/defaultSoundPath``).
        case standard
        /// `"sound": "/path/to/file.wav"`: that file (an absolute path).
        case file(String)
    }

    /// The longest sound path accepted, in bytes (`PATH_MAX`).
    package static let maximumSoundPathBytes = 4_096

    /// Reads `"sound"`: `true` for the default sound, an absolute path for a file; absent, `null`
    /// or `false` for none.
    ///
    /// - Parameter params: the request's params.
    /// - Returns: the choice, or `nil` for none.
    /// - Throws: `RPCError` `-32602` for another type, an empty or relative path, a path with NUL
    ///   or one over ``maximumSoundPathBytes`` bytes.
    package static func soundParameter(_ params: JSONMembers) throws -> SoundChoice? {
        switch params["sound"] {
        case .none, .some(.null), .some(.bool(false)): return nil
        case .some(.bool(true)): return .standard
        case .some(.string(let path)):
            guard path.hasPrefix("/"), path.utf8.count <= maximumSoundPathBytes, !path.utf8.contains(0) else {
                throw RPCError(
                    .invalidParams,
                    "\"sound\" must be true (the default sound) or the absolute path of a sound file, at most "
                        + "\(maximumSoundPathBytes) bytes without NUL")
            }
            return .file(path)
        case .some(let other):
            throw typeError("sound", "true or the absolute path of a sound file (string)", other, .timerStart)
        }
    }

    /// The sound file a `timer.start` asks for, as the path to store with the timer.
    ///
    /// - Parameter params: the request's params.
    /// - Returns: the absolute path to play, or `nil` for none.
    /// - Throws: `RPCError` `-32602` for a malformed `sound` (``soundParameter(_:)``), `sound` with
    ///   `heartbeat`, `on` or `every`, and `true` on a daemon that has no default sound.
    func soundRequest(_ params: JSONMembers) throws -> String? {
        guard let choice = try Self.soundParameter(params) else { return nil }
        if try Self.isHeartbeat(params) {
            throw RPCError(
                .invalidParams,
                "\"sound\" cannot be combined with \"heartbeat\": a heartbeat timer's end is already its alert, "
                    + "run by its on-finish action (--exec)")
        }
        for key in ["on", "every"] where params[key] != nil && params[key] != .null {
            throw RPCError(
                .invalidParams,
                "\"sound\" cannot be combined with \"\(key)\": use --exec with a player for a recurring timer, "
                    + "or a one-shot timer (durations or at)")
        }
        switch choice {
        case .file(let path): return path
        case .standard:
            guard let defaultSoundPath else {
                throw RPCError(
                    .invalidParams,
                    "this timerd has no default sound (timerd-beep.wav was not found next to it or in "
                        + "/usr/share/timerd); give a file: timerctl start … --sound=FILE")
            }
            return defaultSoundPath
        }
    }

    /// The warning `timer.start` answers with (its result's `warning`) when `action`'s sound cannot
    /// be played as things stand: none of ``soundPlayers`` in the captured `PATH`
    /// (``programLocator``), or a file timerd cannot read (``fileReadabilityChecker``); `nil` when it
    /// can, or has no sound. The timer starts all the same: the player may be installed, or the file
    /// put in place, before it ends.
    func soundWarning(_ action: TimerAction?) -> String? {
        guard let action, let sound = action.sound else { return nil }
        let path = action.value(of: "PATH") ?? ActionEnvironment.fallbackPath
        var problems: [String] = []
        if !soundPlayers.contains(where: { programLocator?($0, path) != nil }) {
            problems.append(
                "no sound player (\(soundPlayers.joined(separator: ", "))) in the timer's PATH (\(path))")
        }
        if let problem = fileReadabilityChecker?(sound) { problems.append("cannot read \(sound): \(problem)") }
        guard !problems.isEmpty else { return nil }
        return problems.joined(separator: "; ") + "; the sound will not play"
    }
}
