import TimerClient
import TimerNotifier
import TimerProtocol

extension ControlCommand {
    /// `timerctl notifier`: runs ``Notifier`` over timerctl's own client, without starting a daemon.
    ///
    /// - Parameters:
    ///   - socketPath: `--socket`, or nil for the default socket.
    ///   - output: where warnings go (standard error).
    /// - Returns: never normally; the loop ends only with an error.
    /// - Throws: ``ControlError/unavailable(_:)`` (exit 69) for a build without D-Bus support, no
    ///   session bus or notification server, or timerd unavailable; ``ControlError/failed(_:)``
    ///   (exit 1) when the subscription is refused; ``ControlError/protocolError(_:)`` (exit 76).
    static func runNotifier(socketPath: String?, output: inout some ControlOutput) throws(ControlError) -> Int32 {
        do throws(NotifierError) {
            try Notifier.run(
                connect: { () throws(NotifierError) -> any TimerdLink in
                    do throws(ControlError) {
                        return NotifierLink(try ControlClient.connect(explicitPath: socketPath, autostart: false))
                    } catch {
                        throw .timerd(error.description)
                    }
                },
                warn: { output.err($0 + "\n") })
        } catch {
            switch error {
            case .refused(let rpcError): throw .failed(rpcError)
            case .protocolError(let text): throw .protocolError(text)
            case .notBuilt, .bus, .timerd: throw .unavailable(error.description)
            }
        }
        return 0
    }
}

/// timerctl's ``ControlClient`` as the notifier's connection to timerd.
final class NotifierLink: TimerdLink {
    private let client: ControlClient

    init(_ client: ControlClient) {
        self.client = client
    }

    var fileDescriptor: Int32 { client.fd }

    func send(_ request: TimerRequest) throws(NotifierError) -> Int {
        do throws(ControlError) {
            return try client.send(request)
        } catch {
            throw .timerd(error.description)
        }
    }

    func readLine(timeoutMilliseconds: Int32) throws(NotifierError) -> [UInt8]? {
        do throws(ControlError) {
            return try client.readLine(timeoutMilliseconds: timeoutMilliseconds)
        } catch {
            throw .timerd(error.description)
        }
    }
}
