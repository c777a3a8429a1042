import Testing
import TimerStorage

@testable import TimerDaemon

@Suite("timerd --save chooses the store, not a branch in the loop")
struct DaemonStoreChoiceTests {
    @Test(
        "--save change journals every commit, --save exit writes only at a clean stop",
        arguments: [("change", FileStore.WritePolicy.everyCommit), ("exit", .atClose)])
    func savePolicy(flag: String, expected: FileStore.WritePolicy) throws {
        let options = try DaemonOptions.parse(["--save", flag, "--journal-max-records", "7"])
        let store = try #require(options.makeStore(stateDirectory: "/tmp/unused") as? FileStore)
        #expect(store.writePolicy == expected)  // the mapping in DaemonOptions+Store.swift
        #expect(store.directory == "/tmp/unused")
        #expect(store.location == "/tmp/unused")
        #expect(store.journalMaximumRecords == 7)  // --journal-max-records above
    }
}
