import Foundation
import Glibc
import Testing

@testable import TimerDaemon

/// The player command lines of `--sound`, where timerd finds its default sound, and the default
/// sound itself (dist/sound/timerd-beep.wav, written by scripts/make-sound).
@Suite("Sound: player arguments, the default sound's place and bytes")
struct SoundPlayerTests {
    /// The repository's root, from this file's path (Tests/TimerDaemonTests/…).
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    @Test("Each player's device option (pw-play(1), paplay(1), aplay(1)), and -- before the file")
    func arguments() {
        #expect(Daemon.soundArguments(player: "aplay", device: nil, file: "/a.wav") == ["aplay", "--", "/a.wav"])
        #expect(
            Daemon.soundArguments(player: "aplay", device: "null", file: "/a.wav") == [
                "aplay", "-D", "null", "--", "/a.wav",
            ])
        #expect(
            Daemon.soundArguments(player: "pw-play", device: "alsa_output.pci", file: "/a.wav")
                == ["pw-play", "--target", "alsa_output.pci", "--", "/a.wav"])
        #expect(
            Daemon.soundArguments(player: "paplay", device: "sink1", file: "-b.wav")
                == ["paplay", "--device=sink1", "--", "-b.wav"])
    }

    @Test("The default sound: share/timerd beside bin first, else dist/sound above a build tree, else none")
    func defaultPlace() throws {
        var template = Array("/tmp/timerd-sound-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw MakeTemporaryFailed() }
        let directory = String(cString: made)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let manager = FileManager.default
        // A package layout: PREFIX/bin/timerd and PREFIX/share/timerd/timerd-beep.wav.
        let prefix = directory + "/usr"
        try manager.createDirectory(atPath: prefix + "/bin", withIntermediateDirectories: true)
        try manager.createDirectory(atPath: prefix + "/share/timerd", withIntermediateDirectories: true)
        #expect(Daemon.defaultSoundPath(executable: prefix + "/bin" + "/timerd") == nil)
        try Data([1]).write(to: URL(fileURLWithPath: prefix + "/share/timerd/timerd-beep.wav"))
        #expect(
            Daemon.defaultSoundPath(executable: prefix + "/bin" + "/timerd") == prefix + "/share/timerd/timerd-beep.wav"
        )
        // A build tree: ROOT/.build/x86_64-unknown-linux-gnu/debug/timerd and ROOT/dist/sound/.
        let build = directory + "/src/.build/x86_64-unknown-linux-gnu/debug"
        try manager.createDirectory(atPath: build, withIntermediateDirectories: true)
        try manager.createDirectory(atPath: directory + "/src/dist/sound", withIntermediateDirectories: true)
        #expect(Daemon.defaultSoundPath(executable: build + "/timerd") == nil)
        try Data([1]).write(to: URL(fileURLWithPath: directory + "/src/dist/sound/timerd-beep.wav"))
        #expect(Daemon.defaultSoundPath(executable: build + "/timerd") == directory + "/src/dist/sound/timerd-beep.wav")
    }

    @Test("The committed default sound is exactly what scripts/make-sound writes: a 0.52 s WAV, 22,050 Hz mono 16-bit")
    func committedSoundIsTheScripts() throws {
        var template = Array("/tmp/timerd-sound-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw MakeTemporaryFailed() }
        let directory = String(cString: made)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.root + "/scripts/make-sound")
        process.arguments = [directory + "/out.wav"]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let written = try Data(contentsOf: URL(fileURLWithPath: directory + "/out.wav"))
        let committed = try Data(contentsOf: URL(fileURLWithPath: Self.root + "/dist/sound/timerd-beep.wav"))
        #expect(written == committed)
        // The canonical 44-byte header (RIFF, WAVE, fmt  of 16 bytes, data) and 11,466 frames of 2
        // bytes: 3 beeps of 0.12 s (2,646 frames) and 2 gaps of 0.08 s (1,764) at 22,050 Hz.
        let bytes = [UInt8](committed)
        func uint32(_ at: Int) -> UInt32 { bytes[at..<at + 4].reversed().reduce(0) { $0 << 8 | UInt32($1) } }
        func uint16(_ at: Int) -> UInt16 { UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8 }
        #expect(String(decoding: bytes[0..<4], as: UTF8.self) == "RIFF")
        #expect(String(decoding: bytes[8..<16], as: UTF8.self) == "WAVEfmt ")
        #expect(uint16(20) == 1 && uint16(22) == 1 && uint32(24) == 22_050 && uint16(34) == 16)
        #expect(String(decoding: bytes[36..<40], as: UTF8.self) == "data")
        #expect(uint32(40) == 22_932 && bytes.count == 44 + 22_932)
    }
}

/// mkdtemp(3) failed.
private struct MakeTemporaryFailed: Error {}
