import TimerClient
import TimerProtocol

/// The notifier's connection to timerd, as the caller provides it (timerctl's own client): the
/// notifier sends requests without waiting and reads lines as `poll` reports them.
public protocol TimerdLink: AnyObject {
    /// The connected socket, for `poll`.
    var fileDescriptor: Int32 { get }

    /// Sends one request without waiting for its reply.
    ///
    /// - Parameter request: the request, written by TimerClient's one request writer.
    /// - Returns: the request's id.
    /// - Throws: ``NotifierError/timerd(_:)`` when the connection is lost.
    func send(_ request: TimerRequest) throws(NotifierError) -> Int

    /// Reads the next line.
    ///
    /// - Parameter timeoutMilliseconds: how long to wait; 0 for a line already buffered or readable.
    /// - Returns: the line without its newline, or nil when none came in time.
    /// - Throws: ``NotifierError/timerd(_:)`` when timerd closed the connection.
    func readLine(timeoutMilliseconds: Int32) throws(NotifierError) -> [UInt8]?
}
