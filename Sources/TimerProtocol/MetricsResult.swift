/// The result of `daemon.metrics`: the daemon's metrics as the Prometheus text exposition format
/// (version 0.0.4), the same text `timerd --metrics` serves over HTTP (docs/metrics.md).
public struct MetricsResult: Sendable, Hashable, Codable {
    /// The HTTP content type of ``text``: ``MetricsResult/prometheusContentType``.
    public var contentType: String
    /// The exposition: `# HELP` and `# TYPE` lines and samples, each line ending in a newline.
    public var text: String

    /// The content type of the Prometheus text format, version 0.0.4.
    public static let prometheusContentType = "text/plain; version=0.0.4; charset=utf-8"

    /// Creates a result.
    ///
    /// - Parameters:
    ///   - contentType: the text's content type.
    ///   - text: the exposition.
    public init(contentType: String = MetricsResult.prometheusContentType, text: String) {
        self.contentType = contentType
        self.text = text
    }
}

extension MetricsResult: JSONWritable {
    /// Writes `{"contentType":…,"text":…}`.
    ///
    /// - Parameter writer: the writer to append to.
    package func write(to writer: inout JSONBytesWriter) {
        writer.raw(#"{"contentType":"#)
        writer.string(contentType)
        writer.raw(#","text":"#)
        writer.string(text)
        writer.bytes.append(UInt8(ascii: "}"))
    }
}

extension MetricsResult: JSONReadable {
    /// Reads the value as `JSONDecoder` read its `Decodable` conformance.
    ///
    /// - Parameter json: the parsed JSON.
    /// - Throws: ``JSONShapeError`` naming the first key with the wrong shape.
    package init(json: JSONValue) throws(JSONShapeError) {
        let object = try JSONObjectReader(json, "metrics result")
        self.init(contentType: try object.string("contentType"), text: try object.string("text"))
    }
}
