import Glibc

/// What `SIGABRT` does to the daemon: end it at once, so that systemd restarts it.
///
/// systemd's watchdog (`WatchdogSec=`, man systemd.service(5)) sends `SIGABRT` to a service that
/// stopped pinging, then waits `TimeoutAbortSec=` (default 30 s) before `SIGKILL`. The Swift
/// runtime's backtracer catches `SIGABRT` to print a crash report; for a signal sent with
/// `kill` (not raised by `abort()` in the process) its handler returns and the process goes on:
/// measured here, a debug timerd printed its backtrace in 0.26 s and was still running 10 minutes
/// later. Under the watchdog that meant a hung daemon was replaced only after 30 s.
///
/// ``install()`` replaces that handler for `SIGABRT` alone: the handler writes one line to
/// stderr (the journal keeps it), restores the default action and raises the signal again, so the
/// process ends by `SIGABRT` (a core dump where `LimitCORE=` allows one: that is the crash report
/// kept) within milliseconds. Faults (`SIGSEGV`, `SIGILL`, `SIGBUS` …) keep the runtime's
/// backtracer, which ends the process after its report. Durable state survives the abort; systemd
/// restarts the service (`Restart=on-failure`) and the timers are loaded again.
public enum AbortSignal {
    /// Installs the handler (process-wide; call once, before announcing readiness).
    ///
    /// - Throws: ``SystemError`` from `sigaction`.
    public static func install() throws(SystemError) {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in
            // Only async-signal-safe calls (man signal-safety(7)): write, then raise.
            let line: StaticString =
                "timerd: SIGABRT (the watchdog sends it when the loop stops answering): ending now\n"
            _ = write(2, line.utf8Start, line.utf8CodeUnitCount)
            // SA_RESETHAND restored the default action; SA_NODEFER lets the signal through now.
            raise(SIGABRT)
        }
        action.sa_flags = Int32(truncatingIfNeeded: SA_RESETHAND) | Int32(truncatingIfNeeded: SA_NODEFER)
        sigemptyset(&action.sa_mask)
        try Syscall.retrying("sigaction(SIGABRT)", { sigaction(SIGABRT, &action, nil) })
        var unblock = sigset_t()
        sigemptyset(&unblock)
        sigaddset(&unblock, SIGABRT)
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
    }
}
