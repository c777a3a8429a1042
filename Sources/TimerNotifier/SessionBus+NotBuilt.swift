extension SessionBus {
    #if Notifications
        /// Whether this build links sd-bus (the package trait `Notifications`).
        public static let isBuilt = true
    #else
        /// Whether this build links sd-bus (the package trait `Notifications`).
        public static let isBuilt = false
    #endif
}

#if !Notifications
    /// A build without the package trait `Notifications` has no sd-bus: this stands in for the bus
    /// with the same interface, and ``openUser()`` throws ``NotifierError/notBuilt`` (so no instance
    /// exists), so that `timerctl notifier` says how to get D-Bus support instead of failing to link.
    public final class SessionBus {
        private init() {}

        /// Always throws: there is no sd-bus in this build.
        ///
        /// - Throws: ``NotifierError/notBuilt``.
        public static func openUser() throws(NotifierError) -> SessionBus { throw .notBuilt }

        /// Never reached (no instance exists).
        public func fileDescriptor() throws(NotifierError) -> Int32 { throw .notBuilt }
        /// Never reached (no instance exists).
        public func pollEvents() throws(NotifierError) -> Int16 { throw .notBuilt }
        /// Never reached (no instance exists): -1.
        public func timeoutMilliseconds() -> Int32 { -1 }
        /// Never reached (no instance exists).
        public func capabilities() throws(NotifierError) -> ServerCapabilities { throw .notBuilt }
        /// Never reached (no instance exists).
        public func notify(_ request: NotifyRequest) throws(NotifierError) -> UInt32 { throw .notBuilt }
        /// Never reached (no instance exists).
        public func closeNotification(_ id: UInt32) throws(NotifierError) { throw .notBuilt }
        /// Never reached (no instance exists).
        public func watchNotificationSignals() throws(NotifierError) { throw .notBuilt }
        /// Never reached (no instance exists).
        public func process() throws(NotifierError) -> [NotificationSignal] { throw .notBuilt }
    }
#endif
