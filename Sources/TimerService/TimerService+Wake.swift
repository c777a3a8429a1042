import TimerProtocol

extension TimerService {
    /// The `wake` member of a `timer.start`: whether the timer is to wake the machine from suspend
    /// at its end (`timerctl start … --wake`).
    ///
    /// - Parameter params: the request's params.
    /// - Returns: `true` for `"wake": true`; `false` when absent, `null` or `false`.
    /// - Throws: `RPCError` `-32602` for a value that is not a boolean, and for `true` when this
    ///   daemon cannot wake the machine (``wakeRefusal``, whose text says where to start it instead).
    func wakeMark(_ params: JSONMembers) throws -> Bool {
        switch params["wake"] {
        case .none, .some(.null), .some(.bool(false)): return false
        case .some(.bool(true)):
            if let wakeRefusal { throw RPCError(.invalidParams, wakeRefusal) }
            return true
        case .some(let other): throw Self.typeError("wake", "a boolean", other, .timerStart)
        }
    }
}
