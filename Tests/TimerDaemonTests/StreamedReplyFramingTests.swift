import Foundation
import TestSupport
import Testing
import TimerProtocol
import TimerService

@testable import TimerDaemon

/// Every line a client reads is one whole JSON value: a streamed `timer.list` reply is written in
/// parts as the socket drains, and a subscriber's notifications, a wait's answer or another reply
/// go before or after it, never between two of its parts (docs/protocol.md, "Framing").
///
/// A seeded property test drives ``ClientConnection`` as the daemon's loop does
/// (`Daemon.produceListings` queues a listing's parts while the output is under
/// `Daemon.listingLowWater`; `Daemon.deliverNotifications` offers a turn's shared lines;
/// `Daemon.flush` writes through ``ClientConnection/writeOut(_:)``) with a simulated socket that
/// takes a random number of bytes per write or none, over random interleavings.
@Suite("Streamed replies and notifications are framed as whole lines")
struct StreamedReplyFramingTests {
    /// One simulated client: its connection, the listing being produced and what it has read.
    struct Client {
        var connection = ClientConnection(uid: 1_000)
        var random: SplitMix64
        /// The rest of the listing reply being streamed, newline included.
        var listingRest: [UInt8] = []
        var nextID = 1
        var nextSeq: UInt64 = 1
        var read: [UInt8] = []
        /// The lines queued whole, by kind, to check that each arrives.
        var expectedReplies: [String] = []

        init(seed: UInt64) {
            random = SplitMix64(seed: seed)
            connection.subscriptions.insert(1)
        }

        /// A listing reply of `timers` small objects, as `TimerService.writeListing` shapes it.
        static func listingLine(id: Int, timers: Int) -> [UInt8] {
            let body = (0..<timers).map { #"{"id":"\#($0 + 1)","name":"t\#($0)","state":"running"}"# }
            return Array((#"{"id":\#(id),"jsonrpc":"2.0","result":["# + body.joined(separator: ",") + "]}\n").utf8)
        }

        /// `timer.list` answered with a streamed reply (as `Daemon.handle` sets `listing`).
        mutating func startListing() {
            guard !connection.isStreaming else { return }
            let id = nextID
            nextID += 1
            listingRest = Self.listingLine(id: id, timers: Int.random(in: 300...3_000, using: &random))
            connection.listing = TimerListing(id: .number(Double(id)), ids: [1])
            expectedReplies.append(String(decoding: listingRest.dropLast(), as: UTF8.self))
        }

        /// `Daemon.produceListings`: the next part when the output has drained below the low water.
        mutating func produceListing() {
            guard connection.isStreaming, connection.output.count < Daemon.listingLowWater else { return }
            let size = min(listingRest.count, Int.random(in: 1...Daemon.listingPartBytes, using: &random))
            connection.output.enqueue(bytes: Array(listingRest[..<size]))
            listingRest.removeFirst(size)
            if listingRest.isEmpty { _ = connection.finishListing() }
        }

        /// A plain reply or a wait's answer.
        mutating func reply() {
            let id = nextID
            nextID += 1
            let line = #"{"id":\#(id),"jsonrpc":"2.0","result":{"pong":true}}"#
            if Bool.random(using: &random) {
                connection.queue(Array(line.utf8))
            } else {
                let waiter = WaiterID(1_000 + id)
                connection.waiters.insert(waiter)
                connection.answer(waiter, with: Array(line.utf8))
            }
            expectedReplies.append(line)
        }

        /// One turn's fan-out: a few notifications offered from shared lines, detached after.
        mutating func notify() {
            let lines = SharedLines()
            for _ in 0..<Int.random(in: 1...40, using: &random) {
                let seq = nextSeq
                nextSeq += 1
                let padding = String(repeating: "x", count: Int.random(in: 10...2_000, using: &random))
                let line =
                    #"{"jsonrpc":"2.0","method":"timer.event","params":{"event":"started","pad":"\#(padding)","seq":\#(seq)}}"#
                let index = lines.append(seq: seq, line: Array(line.utf8))
                _ = connection.offerEvent(lines, line: index)
            }
            write()
            connection.events.detach(from: lines)
        }

        /// `Daemon.flush`: writes through a socket that takes a random count per call, or none.
        mutating func write() {
            var generator = random
            defer { random = generator }
            _ = connection.writeOut { bytes in
                if Int.random(in: 0..<8, using: &generator) == 0 { return nil }
                let taken = min(bytes.count, Int.random(in: 1...70_000, using: &generator))
                read += bytes.prefix(taken)
                return taken
            }
        }
    }

    /// 200 seeds of 300 random steps each, then everything drained: each line read parses as one
    /// JSON value, and every reply queued arrives whole, in order.
    @Test("random interleavings of streamed listings, replies, waits and notifications", arguments: 0..<200)
    func everyLineIsWhole(seed: UInt64) throws {
        var client = Client(seed: 0x5EED_0000 + seed)
        for _ in 0..<300 {
            switch Int.random(in: 0..<10, using: &client.random) {
            case 0: client.startListing()
            case 1, 2: client.reply()
            case 3, 4, 5: client.notify()
            case 6, 7: client.produceListing()
            default: client.write()
            }
        }
        var rounds = 0
        while client.connection.isStreaming || !client.connection.output.isEmpty || !client.connection.events.isEmpty {
            client.produceListing()
            client.write()
            rounds += 1
            try #require(rounds < 100_000, "the connection never drained")
        }
        var replies: [String] = []
        for line in client.read.split(separator: 10, omittingEmptySubsequences: false).dropLast() {
            let value = try? JSONSerialization.jsonObject(with: Data(line))
            let text = String(decoding: line, as: UTF8.self)
            try #require(value is [String: Any], "seed \(seed): not one JSON object: \(text.prefix(200))…")
            if !text.contains(#""method":"timer."#) { replies.append(text) }
        }
        #expect(client.read.last == 10)
        #expect(replies == client.expectedReplies, "seed \(seed)")
    }
}
