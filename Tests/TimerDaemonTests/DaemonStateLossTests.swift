import Countdown
import Foundation
import Glibc
import Testing
import TimerStorage

@testable import TimerDaemon

@Suite("timerd refuses a state with missing changes unless --accept-state-loss")
struct DaemonStateLossTests {
    /// A state directory whose snapshot expects a journal that was deleted; returns its path.
    private func directoryWithoutJournal() throws -> String {
        var template = Array("/tmp/timerd-loss-XXXXXX".utf8CString)
        let path = try #require(mkdtemp(&template).map { String(cString: $0) })
        let store = FileStore(directory: path, bootID: "boot-a")
        _ = try store.load()
        var engine = TimerEngine(clock: ManualClock(wall: Date(timeIntervalSince1970: 1_795_965_453)))
        try store.commit(engine.takeChanges(), durability: .synchronous, snapshot: { engine.snapshot })
        _ = try engine.start(durations: [60], name: "tea")
        _ = try engine.stop(.id(1))  // ended: an idle daemon on main would exit 0 instead of hanging
        try store.close(engine.snapshot)
        try FileManager.default.removeItem(atPath: path + "/journal")
        return path
    }

    @Test("A deleted journal: exit 65 (EX_DATAERR, man timerd.8); with --accept-state-loss it starts")
    func exitStatus() throws {
        let state = try directoryWithoutJournal()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let socket = state + "/timerd.sock"
        let arguments = ["--socket", socket, "--state-dir", state, "--exit-when-idle", "0.2"]
        #expect(DaemonCommand.main(arguments) == 65)
        #expect(try DaemonOptions.parse(arguments + ["--accept-state-loss"]).stateLossPolicy == .accept)
        #expect(DaemonCommand.main(arguments + ["--accept-state-loss"]) == 0)  // idle exit after 0.2 s
        // The accepted start wrote a new pair: a plain start works again.
        #expect(DaemonCommand.main(arguments) == 0)
    }
}
