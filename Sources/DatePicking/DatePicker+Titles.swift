import Foundation

extension DatePicker {
    /// The localized titles of the rows of the current ``wheels``, for the current selection.
    ///
    /// Month and year titles depend on the selected year (Hebrew Adar II, Chinese leap months, Japanese eras), so
    /// take a new value after the selection changes. Making one is cheap: formatters are cached process-wide.
    ///
    /// ```swift
    /// let titles = picker.titles
    /// for wheel in picker.wheels {
    ///     print(titles.title(for: wheel.selectedValue, in: wheel.kind))  // "Fri, Aug 1", "12", "07", "PM"
    /// }
    /// ```
    public var titles: WheelTitles {
        let calendar = effectiveCalendar
        let now = Self.sanitized(environment.now) ?? storedDate
        return WheelTitles(
            locale: effectiveLocale, calendar: calendar, layoutDirection: layoutDirection,
            hourField: layout.hourField, selection: selection(in: calendar), today: Self.noon(of: now, in: calendar))
    }

    /// The direction the picker's language is written in: `.rightToLeft` for ar, he, fa, ur…, whose wheels are
    /// laid out in ``visualWheelOrder`` (rule B14).
    public var layoutDirection: Locale.LanguageDirection {
        effectiveLocale.language.characterDirection == .rightToLeft ? .rightToLeft : .leftToRight
    }
}
