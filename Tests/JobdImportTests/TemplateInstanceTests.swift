import Foundation
import JobdImport
import JobdTestKit
import Testing

/// Template timers, instantiated as systemd instantiates them (systemd.unit(5), "Specifiers").
struct TemplateInstanceTests {
    @Test func anInstanceNamesItsTemplateAndExpandsItsSpecifiers() throws {
        let instance = try #require(TemplateInstance(unitName: "pg_dump@15-main.timer"))
        #expect(instance.templateName == "pg_dump@.timer" && instance.with(suffix: "service").unitName == "pg_dump@15-main.service")
        #expect(instance.expand("%i %I %n %N %p %P 100%% %h %") == "15-main 15/main pg_dump@15-main.timer pg_dump@15-main pg_dump pg_dump 100%% %h %")
        #expect(TemplateInstance(unitName: "x@a\\x2db.timer")?.expand("%I") == "a-b")
        for plain in ["logrotate.timer", "pg_dump@.timer", "@x.timer", "pg_dump@x"] {
            #expect(TemplateInstance(unitName: plain) == nil, "\(plain)")
        }
    }

    /// `jobctl import timer pg_dump@15-main.timer` with only the templates on disk.
    @Test func importTimerReadsTheTemplateOfAnInstance() throws {
        let directory = NSTemporaryDirectory() + "jobd-template-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try "[Unit]\nDescription=dump %i\n[Timer]\nOnCalendar=daily\n".write(toFile: directory + "/pg_dump@.timer", atomically: true, encoding: .utf8)
        try "[Service]\nExecStart=/usr/bin/pg_dumpall --cluster %I -f /var/backups/%i.sql\n"
            .write(toFile: directory + "/pg_dump@.service", atomically: true, encoding: .utf8)
        let (status, output) = try Jobctl(runtime: nil)(["import", "timer", directory + "/pg_dump@15-main.timer"])
        #expect(status == 0, "\(output)")
        #expect(output.contains("Description=dump 15-main") && output.contains("ExecStart=/usr/bin/pg_dumpall --cluster 15/main -f /var/backups/15-main.sql"), "\(output)")
        #expect(output.contains("imported as pg_dump@15-main.job"), "\(output)")

        // A timer that converts to nothing says so, and exits 1.
        try "[Timer]\nOnCalendar=daily\n".write(toFile: directory + "/broken.timer", atomically: true, encoding: .utf8)
        try "[Service]\nExecStart=/bin/echo %n\n".write(toFile: directory + "/broken.service", atomically: true, encoding: .utf8)
        let (failed, said) = try Jobctl(runtime: nil)(["import", "timer", directory + "/broken.timer"])
        #expect(failed == 1 && said.contains("broken.timer: nothing imported"), "\(said)")
    }
}
