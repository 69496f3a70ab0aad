import Glibc
import Testing
@testable import MetronomeAudio
import MetronomeTestSupport

/// How the write loop takes each return code of `snd_pcm_writei` and `snd_pcm_wait`.
@Suite struct PCMErrorActionTests {
    /// A signal landing in a write (EINTR) is a retry: no underrun counted, no block dropped.
    @Test func anInterruptedCallIsRetriedNotAnUnderrun() {
        #expect(PCMErrorAction(code: -EINTR) == .retry)
    }

    @Test func aFullBufferWaitsForRoom() {
        #expect(PCMErrorAction(code: -EAGAIN) == .waitForRoom)
    }

    @Test func aDeviceRunDryOrSuspendedIsAnUnderrun() {
        #expect(PCMErrorAction(code: -EPIPE) == .underrun)
        #expect(PCMErrorAction(code: -ESTRPIPE) == .underrun)
    }

    @Test(arguments: [-ENODEV, -EBADFD, -EIO, -ENOTTY, -ETIMEDOUT, -EINVAL])
    func anyOtherErrorFails(code: Int32) {
        #expect(PCMErrorAction(code: code) == .fail)
    }
}
