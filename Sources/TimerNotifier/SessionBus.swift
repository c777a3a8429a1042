#if Notifications
    import CSystemd
    import Glibc
    import TimerSystem

    /// The user's D-Bus session bus through sd-bus (libsystemd), narrowed to what a client of
    /// `org.freedesktop.Notifications` needs: typed calls of `GetCapabilities`, `Notify` and
    /// `CloseNotification`, a match for its two signals, and processing by descriptor in a `poll`
    /// loop (sd_bus_get_fd(3), sd_bus_get_events(3), sd_bus_get_timeout(3), sd_bus_process(3)).
    ///
    /// ```swift
    /// let bus = try SessionBus.openUser()
    /// let id = try bus.notify(request)          // the server's id, for replaces_id and the signals
    /// try bus.watchNotificationSignals()
    /// for signal in try bus.process() { print(signal) }
    /// ```
    ///
    /// Every call blocks until the server answers, at most ``callTimeoutMicroseconds``. The owner
    /// alone uses it (not `Sendable`); the connection is flushed and closed in `deinit`. Data read
    /// from the bus is checked by type before use: a reply of another shape throws.
    public final class SessionBus {
        private let bus: OpaquePointer

        /// The well-known name, object path and interface of the Desktop Notifications Specification.
        public static let service = "org.freedesktop.Notifications"
        /// The object path of the notification server.
        public static let path = "/org/freedesktop/Notifications"
        /// The longest a method call waits for its reply: 5 s, in microseconds.
        public static let callTimeoutMicroseconds: UInt64 = 5_000_000

        private init(bus: OpaquePointer) {
            self.bus = bus
        }

        deinit { sd_bus_flush_close_unref(bus) }

        /// Connects to the user's session bus (`DBUS_SESSION_BUS_ADDRESS`, else
        /// `$XDG_RUNTIME_DIR/bus`; sd_bus_open_user(3)).
        ///
        /// - Returns: the connection.
        /// - Throws: ``NotifierError/bus(_:)`` naming the address it could not reach.
        public static func openUser() throws(NotifierError) -> SessionBus {
            var bus: OpaquePointer?
            let status = sd_bus_open_user(&bus)
            guard status >= 0, let bus else {
                let address = ProcessEnvironment.value("DBUS_SESSION_BUS_ADDRESS") ?? "$XDG_RUNTIME_DIR/bus"
                throw .bus("cannot reach the session bus at \(address): \(Self.errorText(status))")
            }
            return SessionBus(bus: bus)
        }

        /// The descriptor to watch for ``pollEvents()``.
        ///
        /// - Throws: ``NotifierError/bus(_:)`` when the connection is closed.
        public func fileDescriptor() throws(NotifierError) -> Int32 {
            let fd = sd_bus_get_fd(bus)
            guard fd >= 0 else { throw .bus("sd_bus_get_fd: \(Self.errorText(fd))") }
            return fd
        }

        /// The `poll` events sd-bus waits for now (`POLLIN`, and `POLLOUT` while it has bytes to write).
        ///
        /// - Throws: ``NotifierError/bus(_:)`` when the connection is closed.
        public func pollEvents() throws(NotifierError) -> Int16 {
            let events = sd_bus_get_events(bus)
            guard events >= 0 else { throw .bus("sd_bus_get_events: \(Self.errorText(events))") }
            return Int16(truncatingIfNeeded: events)
        }

        /// How long `poll` may wait before sd-bus has work of its own (a call's time-out): in
        /// milliseconds, rounded up, or -1 for none.
        public func timeoutMilliseconds() -> Int32 {
            var deadline: UInt64 = 0
            guard sd_bus_get_timeout(bus, &deadline) >= 0, deadline != UInt64.max else { return -1 }
            var spec = timespec()
            clock_gettime(CLOCK_MONOTONIC, &spec)
            let now = UInt64(spec.tv_sec) * 1_000_000 + UInt64(spec.tv_nsec / 1_000)
            guard deadline > now else { return 0 }
            return Int32(min(UInt64(Int32.max), (deadline - now + 999) / 1_000))
        }

        /// `GetCapabilities() → as`.
        ///
        /// - Returns: the capabilities the server names.
        /// - Throws: ``NotifierError/bus(_:)`` when no server answers (none runs and none can be
        ///   activated) or the reply is not an array of strings.
        public func capabilities() throws(NotifierError) -> ServerCapabilities {
            let call = try newCall("GetCapabilities")
            defer { sd_bus_message_unref(call) }
            let reply = try send(call, "GetCapabilities")
            defer { sd_bus_message_unref(reply) }
            var strings: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
            let status = sd_bus_message_read_strv(reply, &strings)
            guard status >= 0, let strings else {
                throw .bus("GetCapabilities: the reply is not an array of strings (\(Self.errorText(status)))")
            }
            var names: [String] = []
            var index = 0
            while let name = strings[index] {
                names.append(String(cString: name))
                free(name)
                index += 1
            }
            free(strings)
            return ServerCapabilities(names)
        }

        /// `Notify(s, u, s, s, s, as, a{sv}, i) → u`.
        ///
        /// - Parameter request: the arguments.
        /// - Returns: the notification's id (the server's; the same as `replacesID` when that
        ///   notification still exists).
        /// - Throws: ``NotifierError/bus(_:)`` when the call fails or the reply is not a `u`.
        public func notify(_ request: NotifyRequest) throws(NotifierError) -> UInt32 {
            let call = try newCall("Notify")
            defer { sd_bus_message_unref(call) }
            try append(call, string: request.appName)
            var replacesID = request.replacesID
            try check(sd_bus_message_append_basic(call, CChar(UInt8(ascii: "u")), &replacesID), "Notify")
            try append(call, string: request.appIcon)
            try append(call, string: request.summary)
            try append(call, string: request.body)
            try check(sd_bus_message_open_container(call, CChar(UInt8(ascii: "a")), "s"), "Notify")
            for text in request.actions { try append(call, string: text) }
            try check(sd_bus_message_close_container(call), "Notify")
            try check(sd_bus_message_open_container(call, CChar(UInt8(ascii: "a")), "{sv}"), "Notify")
            for hint in request.hints {
                try check(sd_bus_message_open_container(call, CChar(UInt8(ascii: "e")), "sv"), "Notify")
                try append(call, string: hint.key)
                switch hint {
                case .value(var percent):
                    try check(sd_bus_message_open_container(call, CChar(UInt8(ascii: "v")), "i"), "Notify")
                    try check(sd_bus_message_append_basic(call, CChar(UInt8(ascii: "i")), &percent), "Notify")
                case .urgency(let urgency):
                    var byte = urgency.rawValue
                    try check(sd_bus_message_open_container(call, CChar(UInt8(ascii: "v")), "y"), "Notify")
                    try check(sd_bus_message_append_basic(call, CChar(UInt8(ascii: "y")), &byte), "Notify")
                }
                try check(sd_bus_message_close_container(call), "Notify")
                try check(sd_bus_message_close_container(call), "Notify")
            }
            try check(sd_bus_message_close_container(call), "Notify")
            var timeout = request.expireTimeout
            try check(sd_bus_message_append_basic(call, CChar(UInt8(ascii: "i")), &timeout), "Notify")
            let reply = try send(call, "Notify")
            defer { sd_bus_message_unref(reply) }
            var id: UInt32 = 0
            let status = sd_bus_message_read_basic(reply, CChar(UInt8(ascii: "u")), &id)
            guard status > 0 else {
                throw .bus("Notify: the reply is not a notification id (\(Self.errorText(status)))")
            }
            return id
        }

        /// `CloseNotification(u)`.
        ///
        /// - Parameter id: the notification.
        /// - Throws: ``NotifierError/bus(_:)`` when the call fails.
        public func closeNotification(_ id: UInt32) throws(NotifierError) {
            let call = try newCall("CloseNotification")
            defer { sd_bus_message_unref(call) }
            var value = id
            try check(sd_bus_message_append_basic(call, CChar(UInt8(ascii: "u")), &value), "CloseNotification")
            sd_bus_message_unref(try send(call, "CloseNotification"))
        }

        /// Asks the bus for the server's `ActionInvoked` and `NotificationClosed` signals; they are
        /// then returned by ``process()``.
        ///
        /// - Throws: ``NotifierError/bus(_:)`` when the bus refuses the match.
        public func watchNotificationSignals() throws(NotifierError) {
            let rule = "type='signal',interface='\(Self.service)',path='\(Self.path)'"
            // No callback: matched messages come back from sd_bus_process(3), which ``process()`` reads.
            try check(sd_bus_add_match(bus, nil, rule, nil, nil), "AddMatch")
        }

        /// Does the pending work (reading, writing) and returns the notification signals received.
        /// Call it when the descriptor is ready and when ``timeoutMilliseconds()`` has passed.
        ///
        /// - Returns: the signals, in the order received; other messages are dropped.
        /// - Throws: ``NotifierError/bus(_:)`` when the connection was lost.
        public func process() throws(NotifierError) -> [NotificationSignal] {
            var signals: [NotificationSignal] = []
            while true {
                var message: OpaquePointer?
                let status = sd_bus_process(bus, &message)
                guard status >= 0 else { throw .bus("lost the session bus: \(Self.errorText(status))") }
                if let message {
                    if let signal = Self.signal(in: message) { signals.append(signal) }
                    sd_bus_message_unref(message)
                }
                if status == 0 { return signals }
            }
        }

        /// The notification signal a message carries, or nil for any other message or a signal of
        /// another shape.
        private static func signal(in message: OpaquePointer) -> NotificationSignal? {
            if sd_bus_message_is_signal(message, service, "ActionInvoked") > 0 {
                var id: UInt32 = 0
                var key: UnsafePointer<CChar>?
                guard sd_bus_message_read_basic(message, CChar(UInt8(ascii: "u")), &id) > 0,
                    sd_bus_message_read_basic(message, CChar(UInt8(ascii: "s")), &key) > 0, let key
                else { return nil }
                return .actionInvoked(id: id, key: String(cString: key))
            }
            if sd_bus_message_is_signal(message, service, "NotificationClosed") > 0 {
                var id: UInt32 = 0
                var reason: UInt32 = 0
                guard sd_bus_message_read_basic(message, CChar(UInt8(ascii: "u")), &id) > 0,
                    sd_bus_message_read_basic(message, CChar(UInt8(ascii: "u")), &reason) > 0
                else { return nil }
                return .closed(id: id, reason: reason)
            }
            return nil
        }

        private func newCall(_ member: String) throws(NotifierError) -> OpaquePointer {
            var message: OpaquePointer?
            let status = sd_bus_message_new_method_call(bus, &message, Self.service, Self.path, Self.service, member)
            guard status >= 0, let message else { throw .bus("\(member): \(Self.errorText(status))") }
            return message
        }

        private func append(_ message: OpaquePointer, string: String) throws(NotifierError) {
            try check(
                string.withCString { sd_bus_message_append_basic(message, CChar(UInt8(ascii: "s")), $0) }, "Notify")
        }

        /// Sends a call and waits for its reply, which the caller unrefs.
        private func send(_ call: OpaquePointer, _ member: String) throws(NotifierError) -> OpaquePointer {
            var error = sd_bus_error()
            defer { sd_bus_error_free(&error) }
            var reply: OpaquePointer?
            let status = sd_bus_call(bus, call, Self.callTimeoutMicroseconds, &error, &reply)
            guard status >= 0, let reply else {
                var text = Self.errorText(status)
                if let message = error.message { text = String(cString: message) }
                if let name = error.name { text += " (\(String(cString: name)))" }
                throw .bus("\(Self.service).\(member): \(text)")
            }
            return reply
        }

        private func check(_ status: Int32, _ member: String) throws(NotifierError) {
            guard status >= 0 else { throw .bus("\(member): \(Self.errorText(status))") }
        }

        /// `strerror` of a negative errno as sd-bus returns it.
        private static func errorText(_ status: Int32) -> String {
            String(cString: strerror(-status))
        }
    }
#endif
