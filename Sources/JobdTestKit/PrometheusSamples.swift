import Foundation

/// Metrics in the Prometheus text format, read by a real parser: the Python client's, from Debian
/// (python3-prometheus-client, which scripts/setup installs), never by jobd's own code.
package enum PrometheusSamples {
    /// The samples of `text`: "name{label=value,…}" (labels in name order) → value. Fails the
    /// calling test when the parser refuses the text.
    package static func parse(_ text: String) throws -> [String: Double] {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("jobd-metrics-\(UUID().uuidString).prom")
        try Data(text.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let parser = try CapturedProcess.run("/usr/bin/python3", ["-c", """
            import sys
            from prometheus_client.parser import text_string_to_metric_families
            for family in text_string_to_metric_families(open(sys.argv[1]).read()):
                for s in family.samples:
                    labels = ",".join(f"{k}={v}" for k, v in sorted(s.labels.items()))
                    print(f"{s.name}{{{labels}}} {s.value!r}")
            """, file.path])
        guard parser.exitedNormally, parser.status == 0 else {
            throw ParseError(description: "prometheus_client could not parse the metrics: \(parser.standardError)\n\(text)")
        }
        var samples: [String: Double] = [:]
        for line in parser.standardOutput.split(separator: "\n") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            samples[String(line[..<space])] = value
        }
        return samples
    }

    package struct ParseError: Error, CustomStringConvertible {
        package var description: String
    }
}
