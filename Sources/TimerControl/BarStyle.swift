/// How `timerctl bar` writes its lines, for the status bar that reads them.
public enum BarStyle: String, Sendable, CaseIterable {
    /// The template's text alone, one line per change (the default).
    case plain
    /// One JSON object per line, `{"text","tooltip","class","percentage"}`, as waybar's custom
    /// module reads with `"return-type": "json"` (waybar-custom(5), RETURN-TYPE). Text and
    /// tooltip are escaped for Pango markup, which waybar applies unless `escape` is set.
    case waybar
    /// Plain lines for an i3blocks block with `interval=persist` (each line replaces the text).
    case i3blocks
    /// Plain lines for a polybar `custom/script` module with `tail = true`.
    case polybar
    /// Plain lines for `#(timerctl bar --tmux)` in tmux's `status-right`: tmux shows the last line
    /// of a command that has not exited, and redraws at most once a second (tmux(1), FORMATS).
    case tmux
}
