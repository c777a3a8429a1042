import Dispatch
import Glibc
import TimerProtocol
import TimerSystem

extension TimerClient {
    /// Subscribes to timer events (`timer.subscribe`) on a connection of its own and delivers them
    /// as they come, following timerd across lost connections.
    ///
    /// When the connection drops, the stream connects again by `reconnect` and subscribes with
    /// `afterSeq` set to the last number it delivered, so timerd replays what was missed: no event
    /// is lost or delivered twice. A `timer.gap` from timerd (events no longer kept, or a reader
    /// too slow) is delivered as ``TimerNotification/gap(fromSeq:toSeq:reason:)``. When the timerd
    /// reached is another process (it restarted: its numbers start again at 1), the stream delivers
    /// ``TimerNotification/restarted(pid:)`` and then every event of the new timerd from its first.
    ///
    /// The stream buffers without bound what its reader has not taken yet. Ending the iteration
    /// (or cancelling its task) closes the connection.
    ///
    /// - Parameters:
    ///   - timer: one timer's id or name, or `nil` for every timer the user may see.
    ///   - kinds: the event kinds wanted by wire name (`finished`, `step` …), or `nil` for all.
    ///   - afterSeq: the last sequence number already seen, to replay what came after it; `nil`
    ///     for events from now on.
    ///   - reconnect: how to connect again (``ReconnectPolicy/standard`` by default).
    /// - Returns: the notifications. The stream ends with ``TimerClientError/daemon(_:)`` when the
    ///   subscription is refused (-32001 no such timer, -32602 an unknown kind or an `afterSeq`
    ///   past the last event), with the connection error once `reconnect` gives up, or with
    ///   ``TimerClientError/protocolError(_:)`` for a line it cannot read.
    public func events(
        timer: String? = nil, kinds: [String]? = nil, afterSeq: UInt64? = nil, reconnect: ReconnectPolicy = .standard
    ) -> AsyncThrowingStream<TimerNotification, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: TimerNotification.self)
        let hook = CancellableDescriptor()
        continuation.onTermination = { _ in hook.cancel() }
        let follower = EventFollower(
            path: socketPath, timer: timer, kinds: kinds, afterSeq: afterSeq, policy: reconnect, hook: hook)
        // A queue of its own (overcommitting): the stream reads for as long as it is iterated.
        DispatchQueue(label: "timerd.client.events").async {
            follower.run(continuation)
        }
        return stream
    }
}

/// The blocking loop behind ``TimerClient/events(timer:kinds:afterSeq:reconnect:)``.
private struct EventFollower: Sendable {
    var path: String
    var timer: String?
    var kinds: [String]?
    var afterSeq: UInt64?
    var policy: ReconnectPolicy
    var hook: CancellableDescriptor

    /// Connects, subscribes and reads until cancelled, refused, or out of reconnection time.
    func run(_ continuation: AsyncThrowingStream<TimerNotification, any Error>.Continuation) {
        var lastSeq = afterSeq
        var daemonPID: Int32?
        var lostAt: Int64?
        var delay = policy.firstDelayMilliseconds
        while !hook.isCancelled {
            do throws(TimerClientError) {
                let connection = try TimerConnection.connect(explicitPath: path, autostart: .never)
                guard hook.attach(connection.fd) else { break }
                // Detached before the connection is released (and its descriptor closed), never after.
                defer { withExtendedLifetime(connection) { hook.detach() } }
                let ping = try connection.call(.ping, as: PingResult.self)
                var after = lastSeq
                if let known = daemonPID, known != ping.pid {
                    continuation.yield(.restarted(pid: ping.pid))
                    after = 0
                }
                let isReconnection = daemonPID != nil
                daemonPID = ping.pid
                let subscribed: SubscribeResult
                do throws(TimerClientError) {
                    subscribed = try connection.call(
                        .subscribe(timer: timer, kinds: kinds, afterSeq: after), as: SubscribeResult.self)
                } catch .daemon(let error)
                    where isReconnection && error.code == RPCErrorCode.invalidParams.rawValue && after != 0
                {
                    // The same process id but the numbers are behind ours: a timerd restarted under a
                    // reused pid. Follow it from its first event, as for any restart.
                    continuation.yield(.restarted(pid: ping.pid))
                    after = 0
                    subscribed = try connection.call(
                        .subscribe(timer: timer, kinds: kinds, afterSeq: 0), as: SubscribeResult.self)
                }
                if after == 0 { lastSeq = 0 }
                if lastSeq == nil { lastSeq = subscribed.seq }
                lostAt = nil
                delay = policy.firstDelayMilliseconds
                try follow(connection, lastSeq: &lastSeq, continuation)
            } catch {
                if hook.isCancelled { break }
                switch error {
                // A refused connection is timerd stopping (or at its limit): try again, as when it is gone.
                case .unavailable, .notRunning, .refused: break
                case .daemon, .notASocket, .protocolError, .invalidRequest:
                    continuation.finish(throwing: error)
                    return
                }
                let now = Syscall.bootTimeNanoseconds()
                let since = lostAt ?? now
                lostAt = since
                if Double(now - since) / 1e9 + Double(delay) / 1e3 > policy.giveUpAfterSeconds {
                    continuation.finish(throwing: error)
                    return
                }
                sleep(milliseconds: delay)
                delay = min(max(1, delay * 2), policy.longestDelayMilliseconds)
            }
        }
        continuation.finish()
    }

    /// Reads notifications and delivers them until the connection ends.
    private func follow(
        _ connection: TimerConnection, lastSeq: inout UInt64?,
        _ continuation: AsyncThrowingStream<TimerNotification, any Error>.Continuation
    ) throws(TimerClientError) {
        while true {
            guard let line = try connection.readLine(timeoutMilliseconds: -1) else { continue }
            let notification: ServerNotification?
            do {
                notification = try ServerNotification(line: line)
            } catch {
                throw .protocolError(String(decoding: line.prefix(200), as: UTF8.self))
            }
            switch notification {
            case .event(let event):
                // A replay never overlaps what was delivered; the check keeps it so.
                if let last = lastSeq, event.seq <= last { continue }
                lastSeq = event.seq
                continuation.yield(
                    .event(
                        TimerEvent(
                            kind: event.event, timer: event.timer, at: event.at, seq: event.seq, params: event.params)
                    ))
            case .gap(let from, let to, let reason):
                lastSeq = max(lastSeq ?? 0, to)
                continuation.yield(.gap(fromSeq: from, toSeq: to, reason: reason))
            case .other, nil:
                continue
            }
        }
    }

    /// Sleeps `milliseconds` in slices of 20 ms, returning early once cancelled.
    private func sleep(milliseconds: Int) {
        var left = milliseconds
        while left > 0 && !hook.isCancelled {
            let slice = min(left, 20)
            usleep(useconds_t(slice * 1_000))
            left -= slice
        }
    }
}
