// sd-bus, the D-Bus client of libsystemd (Debian: libsystemd-dev), for timerctl's desktop
// notifications (org.freedesktop.Notifications on the session bus).
#include <systemd/sd-bus.h>
