/* Prints snd_pcm_dump of an ALSA playback device, as the metronome opens it:
 * mono, float where it takes it (else S16), RATE (48000), about 85 ms in
 * 1024-frame periods. With PRE set in the environment, the dump before any
 * setup goes to stderr first. The dumps in Tests/MetronomeUnitTests/PCMDumps
 * were taken with it.
 *
 *   cc -o pcm_dump pcm_dump.c -lasound && ./pcm_dump DEVICE [RATE] > DEVICE.txt
 */
#include <alsa/asoundlib.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call) do { int e = (call); if (e < 0) fprintf(stderr, "%s: %s\n", #call, snd_strerror(e)); } while (0)

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: pcm_dump DEVICE [RATE]\n"); return 2; }
    snd_pcm_t *pcm;
    snd_output_t *out;
    int err = snd_pcm_open(&pcm, argv[1], SND_PCM_STREAM_PLAYBACK, SND_PCM_NONBLOCK);
    if (err < 0) { fprintf(stderr, "open %s: %s\n", argv[1], snd_strerror(err)); return 1; }
    if (getenv("PRE")) {
        snd_output_stdio_attach(&out, stderr, 0);
        snd_pcm_dump(pcm, out);
        snd_output_close(out);
        fprintf(stderr, "--- end pre\n");
    }
    snd_pcm_hw_params_t *hw;
    snd_pcm_hw_params_alloca(&hw);
    CHECK(snd_pcm_hw_params_any(pcm, hw));
    CHECK(snd_pcm_hw_params_set_access(pcm, hw, SND_PCM_ACCESS_RW_INTERLEAVED));
    if (snd_pcm_hw_params_set_format(pcm, hw, SND_PCM_FORMAT_FLOAT_LE) < 0)
        CHECK(snd_pcm_hw_params_set_format(pcm, hw, SND_PCM_FORMAT_S16_LE));
    unsigned channels = 1;
    CHECK(snd_pcm_hw_params_set_channels_near(pcm, hw, &channels));
    unsigned rate = argc > 2 ? (unsigned)atoi(argv[2]) : 48000;
    CHECK(snd_pcm_hw_params_set_rate_near(pcm, hw, &rate, 0));
    unsigned buffer_time = 85333;
    CHECK(snd_pcm_hw_params_set_buffer_time_near(pcm, hw, &buffer_time, 0));
    snd_pcm_uframes_t period = 1024;
    CHECK(snd_pcm_hw_params_set_period_size_near(pcm, hw, &period, 0));
    CHECK(snd_pcm_hw_params(pcm, hw));
    snd_output_stdio_attach(&out, stdout, 0);
    snd_pcm_dump(pcm, out);
    snd_output_close(out);
    snd_pcm_close(pcm);
    return 0;
}
