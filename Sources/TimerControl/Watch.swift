import FoundationEssentials
import Glibc
import TimerClient
import TimerModel
import TimerProtocol
import TimerSystem

/// `timerctl watch` (alias `top`): a live full-screen view of the user's timers.
///
/// It subscribes to every event of the user's timers (`timer.subscribe`), asks for the live timers
/// once (`timer.list`; again only after a `timer.gap`, when events were lost), and from then on
/// redraws from pushed events plus a local tick that counts running timers down (each second, as the
/// shown second changes, or every 100 ms in a timer's last 10 s): timerd is never polled. Keys send
/// the ordinary requests (`timer.pause` …) on the same connection; their effect comes back as events.
///
/// The terminal is taken with `TerminalMode` (shared with the date picker): raw mode and the
/// alternate screen, given back on `q`, on an error, and from the SIGINT/SIGTERM/SIGHUP handlers.
enum Watch {
    /// Refuses to run without a terminal on standard input and output (exit 69, as `pick` does).
    ///
    /// - Throws: ``ControlError/unavailable(_:)`` pointing to `timerctl events`.
    static func checkTerminal() throws(ControlError) {
        guard isatty(0) == 1, isatty(1) == 1 else {
            throw .unavailable(
                "watch needs a terminal (standard input and output are not one); "
                    + "'timerctl events' prints the same events as lines, and 'timerctl status' the timers")
        }
    }

    /// What a key asks for.
    enum Action: Equatable {
        case quit, up, down, pauseOrResume, stop, next
        /// Add (positive) or take away (negative) seconds.
        case extend(Double)
    }

    /// Decodes one read of the terminal: `q`, `p`, `s`, `+`/`=`, `-`, `n`, arrows (`ESC [ A`/`B`,
    /// also `ESC O A`/`B` in application mode) and `k`/`j`; anything else is ignored.
    ///
    /// - Parameter bytes: the bytes of one `read(2)`.
    /// - Returns: the actions in order.
    static func actions(_ bytes: [UInt8]) -> [Action] {
        var actions: [Action] = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "q"), UInt8(ascii: "Q"): actions.append(.quit)
            case UInt8(ascii: "p"), UInt8(ascii: " "): actions.append(.pauseOrResume)
            case UInt8(ascii: "s"): actions.append(.stop)
            case UInt8(ascii: "n"): actions.append(.next)
            case UInt8(ascii: "+"), UInt8(ascii: "="): actions.append(.extend(60))
            case UInt8(ascii: "-"), UInt8(ascii: "_"): actions.append(.extend(-60))
            case UInt8(ascii: "k"): actions.append(.up)
            case UInt8(ascii: "j"): actions.append(.down)
            case 0x1B where index + 1 < bytes.count && (bytes[index] == 0x5B || bytes[index] == 0x4F):
                let final = bytes[index + 1]
                index += 2
                if final == UInt8(ascii: "A") { actions.append(.up) }
                if final == UInt8(ascii: "B") { actions.append(.down) }
            default: break
            }
        }
        return actions
    }

    /// Runs the view until `q` (exit 0) or until timerd goes away (exit 69).
    ///
    /// - Parameters:
    ///   - client: the connection.
    ///   - output: the streams (for whether colour is wanted).
    /// - Returns: 0.
    /// - Throws: ``ControlError/unavailable(_:)`` when timerd closes the connection or the terminal
    ///   cannot be used, ``ControlError/failed(_:)`` when the subscription is refused.
    static func run(_ client: ControlClient, output: inout some ControlOutput) throws(ControlError) -> Int32 {
        let subscribeID = try client.send(.subscribe(timer: nil, kinds: nil, afterSeq: nil))
        var listID = try client.send(.list(includingEnded: false))
        do throws(SystemError) {
            try TerminalMode.enterRawMode(input: 0, output: 1)
        } catch {
            throw .unavailable("cannot use the terminal: \(error)")
        }
        defer { TerminalMode.restore() }
        var model = WatchModel()
        let screen = WatchScreen(usesColor: output.stdoutIsColorTerminal)
        while true {
            // Lines already read into the client's buffer first: poll would not report them.
            while let line = try client.readLine(timeoutMilliseconds: 0) {
                if try handle(line, model: &model, subscribeID: subscribeID, listID: listID) {
                    listID = try client.send(.list(includingEnded: false))
                }
            }
            draw(model, screen: screen)
            var descriptors = [
                pollfd(fd: 0, events: Int16(POLLIN), revents: 0),
                pollfd(fd: client.fd, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&descriptors, 2, model.tickMilliseconds(now: Syscall.bootTimeNanoseconds()))
            if ready < 0 {
                if errno == EINTR { continue }  // SIGWINCH: redraw at the new size
                throw .unavailable("poll: \(SystemError("poll", errno: errno))")
            }
            guard descriptors[0].revents != 0 else { continue }
            var bytes = [UInt8](repeating: 0, count: 64)
            let count = read(0, &bytes, bytes.count)
            if count == 0 { return 0 }
            guard count > 0 else { continue }
            for action in actions(Array(bytes[0..<count])) {
                model.message = nil
                switch action {
                case .quit: return 0
                case .up: model.moveSelection(by: -1)
                case .down: model.moveSelection(by: 1)
                default: try send(action, for: model.selected?.timer, on: client)
                }
            }
        }
    }

    /// Sends the request a key asks for, on the selected timer (nothing when none is selected).
    private static func send(_ action: Action, for timer: TimerInfo?, on client: ControlClient) throws(ControlError) {
        guard let timer else { return }
        switch action {
        case .pauseOrResume:
            guard timer.state.isLive else { return }
            try client.send(timer.state == .running ? .pause(timer.id) : .resume(timer.id))
        case .stop: try client.send(.stop(timer.id))
        case .next: try client.send(.skip(timer.id))
        case .extend(let seconds): try client.send(.extend(timer.id, seconds: seconds))
        case .quit, .up, .down: return
        }
    }

    /// Applies one line from timerd to the model (`watch` and `bar` read the same lines).
    ///
    /// - Parameters:
    ///   - line: the line, without its newline.
    ///   - model: the timers as reported so far.
    ///   - subscribeID: the id of the `timer.subscribe` request.
    ///   - listID: the id of the latest `timer.list` request (an older listing is ignored).
    ///   - now: boot-time nanoseconds when the line arrived.
    /// - Returns: whether the listing must be asked for again (a `timer.gap`: events were lost).
    /// - Throws: ``ControlError/failed(_:)`` when the subscription was refused;
    ///   ``ControlError/protocolError(_:)`` for a line that is not a reply or a notification.
    static func handle(
        _ line: [UInt8], model: inout WatchModel, subscribeID: Int, listID: Int,
        now: Int64 = Syscall.bootTimeNanoseconds()
    ) throws(ControlError) -> Bool {
        if let notification = try? ServerNotification(line: line) {
            switch notification {
            case .event(let event): model.apply(event: event.event, timer: event.timer, now: now)
            case .gap: return true
            case .other: break
            }
            return false
        }
        if let response = try? ControlClient.decode(line, as: [TimerInfo].self), response.id == .number(Double(listID))
        {
            if let timers = response.result { model.load(timers, now: now) }
            return false
        }
        let reply: RPCReply
        do {
            reply = try RPCReply(line: line)
        } catch {
            throw .protocolError(String(decoding: line.prefix(200), as: UTF8.self))
        }
        if let error = reply.error {
            if reply.id == .number(Double(subscribeID)) || reply.id == .null { throw .failed(error) }
            model.message = "Error: " + error.message
        }
        return false
    }

    /// Draws one frame: home, clear, the lines (CR LF: raw mode turns output processing off).
    private static func draw(_ model: WatchModel, screen: WatchScreen) {
        let size = TerminalMode.size(of: 1)
        let lines = screen.lines(
            model, columns: size.columns, rows: size.rows, now: Syscall.bootTimeNanoseconds(), wallNow: Date())
        TerminalMode.write(1, "\u{1B}[H\u{1B}[2J" + lines.joined(separator: "\r\n"))
    }
}
