import TimerService

/// Long `timer.list` replies, written a part at a time as each client's socket drains, with a
/// budget of bytes per loop turn shared by every client (docs/fairness.md): a listing never sits
/// whole in memory, and many clients listing at once cannot hold the loop for long.
extension Daemon {
    /// A streamed listing gets its next part when fewer than this many bytes are queued for its
    /// client (64 KiB): the socket has drained.
    static let listingLowWater = 64 << 10
    /// The size of one part, in bytes (64 KiB; a part ends after the timer that reaches it).
    static let listingPartBytes = 64 << 10
    /// The most listing bytes produced in one turn of the loop across every client (256 KiB):
    /// with 200 clients listing 3,000 timers at once, a ping from another client waited 7 ms at p50
    /// and 16 ms at p99 in a debug build here (docs/fairness.md).
    static let listingBytesPerTurn = 256 << 10

    /// Writes the next parts of the listings whose clients have drained, in turn from a rotating
    /// start, until the turn's budget is spent; a finished listing lets its client's held lines
    /// be answered. The parts are flushed with the turn's other replies (``commit()``).
    ///
    /// - Complexity: O(c log c) for the c clients with a listing (not a walk of every connection),
    ///   plus the bytes written.
    func produceListings() {
        guard !streamingTokens.isEmpty else { return }
        let tokens = streamingTokens.filter { connections[$0]?.state.isStreaming == true }.sorted()
        streamingTokens = Set(tokens)  // finished or closed ones leave
        guard !tokens.isEmpty else { return }
        listingRotation &+= 1
        let start = listingRotation % tokens.count
        var budget = Self.listingBytesPerTurn
        var part: [UInt8] = []
        for offset in 0..<tokens.count where budget > 0 {
            guard let connection = connections[tokens[(start + offset) % tokens.count]],
                var listing = connection.state.listing, connection.state.output.count < Self.listingLowWater,
                // A reply held for this turn's commit goes first; the listing starts next turn.
                heldTokens.isEmpty || !heldTokens.contains(connection.token)
            else { continue }
            part.removeAll(keepingCapacity: true)
            backend.writeListing(&listing, into: &part, upTo: min(Self.listingPartBytes, budget))
            budget -= part.count
            connection.state.output.enqueue(bytes: part)
            connection.state.listing = listing
            markForFlush(connection)
            if listing.isFinished {
                let held = connection.state.finishListing()
                consumeLines(held, from: connection)
                connection.state.settleAfterHeldLines()
            }
        }
    }
}
