import CSndFile

/// The sample format of a rendered file.
package enum SampleFormat: String, CaseIterable, Sendable {
    /// 16-bit integer PCM, the default.
    case pcm16
    /// 32-bit IEEE float (WAV, AIFF).
    case float
}

/// A sound file format chosen by the output file's extension.
package struct OutputFormat: Equatable, Sendable {
    package enum Container: String, CaseIterable, Sendable {
        case wav, flac, ogg, aiff
        /// A Standard MIDI File: notes and the tempo map, no sound (`MIDIRenderer`).
        case midi
    }

    package let container: Container
    package let sampleFormat: SampleFormat

    package static let extensions: [String: Container] = [
        "wav": .wav, "flac": .flac, "ogg": .ogg, "oga": .ogg, "aiff": .aiff, "aif": .aiff,
        "mid": .midi, "midi": .midi,
    ]

    /// The format for `path`, from its extension (case-insensitive).
    package init(path: String, sampleFormat: SampleFormat) throws(RenderError) {
        let name = path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex,
              let container = Self.extensions[name[name.index(after: dot)...].lowercased()] else {
            throw .badRequest("output '\(path)' has no known extension: use .wav, .flac, .ogg, .aiff or .mid")
        }
        if sampleFormat == .float, container == .midi {
            throw .badRequest("--format float is for .wav and .aiff output; a MIDI file holds no samples")
        }
        if sampleFormat == .float, container == .flac || container == .ogg {
            throw .badRequest("--format float is for .wav and .aiff output; \(container.rawValue) cannot hold float samples")
        }
        self.container = container
        self.sampleFormat = sampleFormat
    }

    /// The largest sample data a RIFF WAV can hold, less room for its header.
    static let riffDataLimit: Int64 = 0xFFFF_FFFF - 4096

    /// The libsndfile `SF_FORMAT_*` value for a mono file of `frames` frames:
    /// WAV is plain RIFF when it fits in 4 GB and RF64 when it does not.
    func libsndfileFormat(frames: Int64) -> Int32 {
        let major: Int32
        switch container {
        case .wav:
            let bytes = frames.multipliedReportingOverflow(by: sampleFormat == .float ? 4 : 2)
            major = bytes.overflow || bytes.partialValue > Self.riffDataLimit ? Int32(SF_FORMAT_RF64) : Int32(SF_FORMAT_WAV)
        case .flac: major = Int32(SF_FORMAT_FLAC)
        case .ogg: return Int32(SF_FORMAT_OGG | SF_FORMAT_VORBIS)
        case .aiff: major = Int32(SF_FORMAT_AIFF)
        case .midi: preconditionFailure("MIDI files are written by MIDIRenderer, not libsndfile")
        }
        return major | (sampleFormat == .float ? Int32(SF_FORMAT_FLOAT) : Int32(SF_FORMAT_PCM_16))
    }

    /// Bytes a sample takes in the file; nil for compressed formats.
    var bytesPerSample: Int64? {
        switch container {
        case .wav, .aiff: sampleFormat == .float ? 4 : 2
        case .flac, .ogg, .midi: nil
        }
    }

    /// The most frames a FLAC stream can count: STREAMINFO holds the total in 36 bits.
    static let flacFrameLimit: Int64 = (1 << 36) - 1

    /// The sample data `frames` frames take, when the format's size is known in advance.
    func dataBytes(frames: Int64) -> Int64? {
        bytesPerSample.map { frames.multipliedReportingOverflow(by: $0) }.map { $0.overflow ? .max : $0.partialValue }
    }

    /// Refuses a length the format cannot hold: AIFF's chunk sizes are 32 bits
    /// (4 GB), FLAC counts at most 2^36 frames. WAV turns into RF64 past 4 GB.
    func check(frames: Int64, path: String) throws(RenderError) {
        switch container {
        case .aiff:
            if let bytes = dataBytes(frames: frames), bytes > Self.riffDataLimit {
                throw .badRequest("'\(path)' would hold \(ByteCount(bytes)) of audio; AIFF holds at most 4 GB: use .wav (RF64 past 4 GB) or .flac")
            }
        case .flac:
            if frames > Self.flacFrameLimit {
                throw .badRequest("'\(path)' would hold \(frames) frames; FLAC counts at most 2^36: use .wav (RF64) or a shorter length")
            }
        case .wav, .ogg, .midi:
            break
        }
    }

    /// Whether samples are handed to libsndfile as 16-bit integers.
    var writesIntegers: Bool { sampleFormat == .pcm16 && container != .ogg }
}
