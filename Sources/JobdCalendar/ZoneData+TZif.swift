extension ZoneData {
    /// Parses a TZif file (RFC 8536). Version 1 files use their 32-bit data; version 2 and later
    /// skip the 32-bit block and use the 64-bit data and the POSIX TZ footer.
    convenience init(tzif bytes: [UInt8], source: String) throws(CalendarError) {
        func malformed(_ why: String) -> CalendarError {
            CalendarError(code: .invalidTimeZoneData, input: source, expected: why)
        }
        var reader = TZifReader(bytes: bytes)
        guard let header = reader.header() else { throw malformed("a TZif header") }
        var block = header
        var timeSize = 4
        if header.version >= 2 {
            guard reader.skip(header.dataLength(timeSize: 4)), let second = reader.header() else {
                throw malformed("a second (64-bit) TZif header")
            }
            block = second
            timeSize = 8
        }
        var transitions: [Int64] = []
        transitions.reserveCapacity(block.timeCount)
        for _ in 0..<block.timeCount {
            guard let value = timeSize == 8 ? reader.int64() : reader.int32().map(Int64.init) else {
                throw malformed("\(block.timeCount) transition times")
            }
            transitions.append(value)
        }
        var transitionTypes: [Int] = []
        for _ in 0..<block.timeCount {
            guard let type = reader.byte(), Int(type) < block.typeCount else {
                throw malformed("transition type indices below \(block.typeCount)")
            }
            transitionTypes.append(Int(type))
        }
        var offsets: [Int64] = []
        var isDaylightSaving: [Bool] = []
        var abbreviationIndices: [Int] = []
        for _ in 0..<block.typeCount {
            guard let offset = reader.int32(), let dst = reader.byte(), let index = reader.byte() else {
                throw malformed("\(block.typeCount) local time type records")
            }
            offsets.append(Int64(offset))
            isDaylightSaving.append(dst != 0)
            abbreviationIndices.append(Int(index))
        }
        guard let characterSlice = reader.bytes(block.characterCount) else {
            throw malformed("\(block.characterCount) bytes of abbreviations")
        }
        let characters = Array(characterSlice)
        let abbreviations = abbreviationIndices.map { start -> String in
            guard start < characters.count else { return "" }
            let end = characters[start...].firstIndex(of: 0) ?? characters.count
            return String(decoding: characters[start..<end], as: UTF8.self)
        }
        guard reader.skip(block.leapCount * (timeSize + 4) + block.standardCount + block.universalCount) else {
            throw malformed("leap second and indicator records")
        }
        var footer: PosixTimeZoneRule?
        if header.version >= 2, reader.byte() == UInt8(ascii: "\n") {
            let rest = Array(reader.remaining())
            let end = rest.firstIndex(of: UInt8(ascii: "\n")) ?? rest.count
            let text = String(decoding: rest[0..<end], as: UTF8.self)
            if !text.isEmpty {
                guard let rule = PosixTimeZoneRule(parsing: text) else {
                    throw malformed("a POSIX TZ footer, found '\(text)'")
                }
                footer = rule
            }
        }
        guard !offsets.isEmpty else { throw malformed("at least one local time type") }
        self.init(
            transitions: transitions, transitionTypes: transitionTypes, offsets: offsets,
            isDaylightSaving: isDaylightSaving, abbreviations: abbreviations, footer: footer)
    }
}

/// A cursor over TZif bytes; every read returns `nil` past the end instead of trapping.
private struct TZifReader {
    struct Header {
        var version: Int
        var universalCount: Int
        var standardCount: Int
        var leapCount: Int
        var timeCount: Int
        var typeCount: Int
        var characterCount: Int

        func dataLength(timeSize: Int) -> Int {
            timeCount * timeSize + timeCount + typeCount * 6 + characterCount + leapCount * (timeSize + 4)
                + standardCount + universalCount
        }
    }

    let bytes: [UInt8]
    var position = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func header() -> Header? {
        guard let magic = self.bytes(4), magic.elementsEqual("TZif".utf8), let versionByte = byte(), skip(15),
            let universal = uint32(), let standard = uint32(), let leap = uint32(), let time = uint32(),
            let type = uint32(), let characters = uint32()
        else { return nil }
        let version = versionByte == 0 ? 1 : Int(versionByte) - Int(UInt8(ascii: "0"))
        return Header(
            version: version, universalCount: universal, standardCount: standard, leapCount: leap,
            timeCount: time, typeCount: type, characterCount: characters)
    }

    mutating func skip(_ count: Int) -> Bool {
        guard count >= 0, position + count <= bytes.count else { return false }
        position += count
        return true
    }

    mutating func byte() -> UInt8? {
        guard position < bytes.count else { return nil }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func bytes(_ count: Int) -> ArraySlice<UInt8>? {
        guard count >= 0, position + count <= bytes.count else { return nil }
        defer { position += count }
        return bytes[position..<position + count]
    }

    mutating func remaining() -> ArraySlice<UInt8> {
        defer { position = bytes.count }
        return bytes[position...]
    }

    mutating func uint32() -> Int? {
        guard let raw = bytes(4) else { return nil }
        return raw.reduce(0) { $0 << 8 | Int($1) }
    }

    mutating func int32() -> Int32? {
        uint32().map { Int32(truncatingIfNeeded: $0) }
    }

    mutating func int64() -> Int64? {
        guard let raw = bytes(8) else { return nil }
        return Int64(bitPattern: raw.reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
    }
}
