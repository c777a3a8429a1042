import TimerModel
import TimerProtocol

extension ControlCommand {
    /// What `timerctl stats` prints for a `daemon.stats` result:
    ///
    /// ```
    /// timers: 3 live (2 running, 1 paused), 10 fired since timerd started
    /// lateness: p50 35 µs, p99 165 µs, max 2100 µs over the last 10 firings
    /// ```
    ///
    /// then, in shared mode, a line of the store's figures. Microseconds are rounded to whole ones.
    ///
    /// - Parameter stats: the result.
    /// - Returns: the lines, each newline-terminated.
    static func statsText(_ stats: StatsResult) -> String {
        let paused = stats.liveTimers - stats.runningTimers
        var text = "timers: \(stats.liveTimers) live (\(stats.runningTimers) running, \(paused) paused), "
        text += "\(stats.firedTimers) fired since timerd started"
        if let catchUps = stats.catchUpTimers, catchUps > 0 {
            text += " (\(catchUps) catch-up\(catchUps == 1 ? "" : "s"))"
        }
        text += "\n"
        if let lateness = stats.latenessMicroseconds {
            text += "lateness: p50 \(microseconds(lateness.p50)), p99 \(microseconds(lateness.p99)), "
            text += "max \(microseconds(lateness.max)) over the last \(lateness.count) firing"
            text += lateness.count == 1 ? "\n" : "s\n"
        }
        if let store = stats.store {
            text += "shared store: \(store.claims) claims, \(store.leaseRescues) lease rescues, "
            text += "\(store.fencesLost) fences lost; round trips p50 \(microseconds(store.roundTripMicrosecondsP50)), "
            text += "p99 \(microseconds(store.roundTripMicrosecondsP99))\n"
        }
        return text
    }

    /// `35 µs`: whole microseconds.
    private static func microseconds(_ value: Double) -> String {
        value.isFinite && abs(value) < 9e18 ? "\(Int64(value.rounded())) µs" : "? µs"
    }
}
