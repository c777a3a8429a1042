import TimerClient
import TimerModel
import TimerProtocol
import TimerSystem

extension ControlCommand {
    /// How often the progress bar of `wait` is redrawn on a terminal, in milliseconds (5 times a
    /// second: the bar's 20 cells and the seconds shown change no faster). A local tick: nothing
    /// is asked of timerd.
    static let waitRedrawMilliseconds: Int32 = 200

    /// Sends `timer.wait` and reads until its reply. On a terminal it also subscribes to the
    /// timer's events and asks its status once, then redraws a progress bar on stderr from the
    /// last timer object it has and the local monotonic clock; pushed events (paused, resumed, a
    /// group's step) replace that object. timerd is never polled.
    ///
    /// - Returns: the ended timer.
    /// - Throws: ``ControlError/failed(_:)`` with the daemon's error, or a connection error.
    static func wait(_ client: ControlClient, target: String, output: inout some ControlOutput)
        throws(ControlError) -> TimerInfo
    {
        let live = output.stderrIsTerminal
        var statusID: Int?
        if live {
            try client.send(.subscribe(timer: target, kinds: nil, afterSeq: nil))
            statusID = try client.send(.status(target))
        }
        let waitID = try client.send(.wait(target))
        // The last timer object known and when it arrived (boot-time nanoseconds).
        var shown: (timer: TimerInfo, at: Int64)?
        var drewBar = false
        defer { if drewBar { output.err("\r\u{1B}[K") } }
        while true {
            let ticking = live && shown?.timer.state == .running
            guard let line = try client.readLine(timeoutMilliseconds: ticking ? waitRedrawMilliseconds : -1) else {
                if let shown { drawBar(shown.timer, since: shown.at, output: &output) }
                continue
            }
            if let notification = try? ServerNotification(line: line) {
                if case .event(let event) = notification {
                    shown = (event.timer, Syscall.bootTimeNanoseconds())
                    drawBar(event.timer, since: shown?.at ?? 0, output: &output)
                    drewBar = true
                }
                continue
            }
            let reply: RPCReply
            do {
                reply = try RPCReply(line: line)
            } catch {
                throw .protocolError(String(decoding: line.prefix(200), as: UTF8.self))
            }
            if reply.id == .null, let error = reply.error { throw ControlClient.connectionError(error) }
            if reply.id == .number(Double(waitID)) {
                let response = try ControlClient.decode(line, as: TimerInfo.self)
                if let error = response.error { throw .failed(error) }
                guard let timer = response.result else { throw .protocolError("no result") }
                return timer
            }
            // The status asked once at the start; a failed subscribe (an older timerd) leaves the
            // bar as the status drew it, and the wait still ends the command.
            if let statusID, reply.id == .number(Double(statusID)),
                let timer = try? ControlClient.decode(line, as: TimerInfo.self).result
            {
                shown = (timer, Syscall.bootTimeNanoseconds())
                drawBar(timer, since: shown?.at ?? 0, output: &output)
                drewBar = true
            }
        }
    }

    /// Draws `label [#####---]  25% 12:34 left` on stderr, the remaining time counted down from
    /// `timer` (received at `since`, boot-time nanoseconds) while it runs.
    private static func drawBar(_ timer: TimerInfo, since: Int64, output: inout some ControlOutput) {
        var remaining = timer.remaining
        if timer.state == .running {
            remaining = max(0, remaining - Double(Syscall.bootTimeNanoseconds() - since) / 1e9)
        }
        let fraction = timer.duration > 0 ? min(1, max(0, (timer.duration - remaining) / timer.duration)) : 1
        let label = timer.name ?? timer.id
        output.err(
            "\r\(label) \(StatusTable.bar(fraction)) \(StatusTable.percent(fraction)) "
                + "\(DurationFormatter.clock(seconds: remaining)) left\u{1B}[K")
    }
}
