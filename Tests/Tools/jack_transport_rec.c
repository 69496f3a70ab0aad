/* JACK's transport as a client sees it, and a port recorded beside it.
 *
 *   jack_transport_rec query
 *   jack_transport_rec PORT SECONDS FILE
 *
 * `query` prints the transport's state and position once, as one line:
 *
 *   STATE FRAME BBT BAR BEAT TICK BEATS_PER_BAR BEAT_TYPE TICKS_PER_BEAT BPM BAR_START_TICK
 *
 * (STATE 0 stopped, 1 rolling, 3 starting; BBT 1 when the timebase master
 * filled the bar, beat and tick, and the fields after it 0 otherwise).
 *
 * With PORT, SECONDS and FILE it connects its input to PORT and records
 * SECONDS of JACK time into FILE as raw 32-bit float samples, each cycle at
 * its frame time (jack_last_frame_time) counted from the first cycle, as
 * jack_stamped_rec does; and the transport each cycle began with
 * (jack_transport_query in the process callback) into FILE.transport, a line
 * a cycle: the cycle's first sample in FILE, then the fields above. A sample
 * at offset i of a rolling cycle is at transport frame FRAME + i. Prints
 * "recording" on stdout once connected. Used by the Ardour tests; built by
 * them with the Swift toolchain's clang.
 */
#include "frame_stamped.h"
#include <jack/jack.h>
#include <jack/transport.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void print_position(FILE *file, jack_transport_state_t state, const jack_position_t *position) {
    int bbt = (position->valid & JackPositionBBT) != 0;
    fprintf(file, "%d %u %d %d %d %d %.17g %.17g %.17g %.17g %.17g\n", (int)state, position->frame, bbt,
            bbt ? position->bar : 0, bbt ? position->beat : 0, bbt ? position->tick : 0,
            bbt ? (double)position->beats_per_bar : 0, bbt ? (double)position->beat_type : 0,
            bbt ? position->ticks_per_beat : 0, bbt ? position->beats_per_minute : 0,
            bbt ? position->bar_start_tick : 0);
}

struct cycle {
    uint64_t at;
    jack_transport_state_t state;
    jack_position_t position;
};

static jack_client_t *client;
static jack_port_t *input;
static struct frame_stamped recording;
static struct cycle *cycles;
static uint64_t cycle_capacity;
static atomic_uint_fast64_t cycle_count;

static int process(jack_nframes_t frames, void *arg) {
    (void)arg;
    uint64_t at = frame_stamped_port(&recording, client, input, frames);
    uint64_t count = atomic_load(&cycle_count);
    if (at < recording.capacity && count < cycle_capacity) {
        cycles[count].at = at;
        cycles[count].state = jack_transport_query(client, &cycles[count].position);
        atomic_store(&cycle_count, count + 1);
    }
    return 0;
}

static int query(void) {
    jack_position_t position;
    jack_transport_state_t state = jack_transport_query(client, &position);
    print_position(stdout, state, &position);
    jack_client_close(client);
    return 0;
}

int main(int argc, char **argv) {
    if (!(argc == 2 && strcmp(argv[1], "query") == 0) && argc != 4) {
        fprintf(stderr, "usage: jack_transport_rec query | jack_transport_rec PORT SECONDS FILE\n");
        return 64;
    }
    jack_status_t status;
    client = jack_client_open(argc == 2 ? "transport-query" : "transport-rec", JackNoStartServer, &status);
    if (!client) {
        fprintf(stderr, "jack_transport_rec: no JACK server (status 0x%x)\n", status);
        return 69;
    }
    if (argc == 2) return query();
    int recorded = frame_stamped_init(&recording, client, atoi(argv[2]), 1);
    cycle_capacity = recording.capacity / jack_get_buffer_size(client) + 2;
    cycles = calloc(cycle_capacity, sizeof(struct cycle));
    input = jack_port_register(client, "in", JACK_DEFAULT_AUDIO_TYPE, JackPortIsInput, 0);
    if (!recorded || !cycles || !input) return 70;
    jack_set_process_callback(client, process, NULL);
    char *input_name = strdup(jack_port_name(input));
    if (jack_activate(client) != 0 || jack_connect(client, argv[1], input_name) != 0) {
        fprintf(stderr, "jack_transport_rec: cannot connect %s\n", argv[1]);
        return 69;
    }
    frame_stamped_run(&recording, client);
    FILE *file = fopen(argv[3], "wb");
    if (!file || fwrite(recording.samples, sizeof(float), recording.capacity, file) != recording.capacity || fclose(file) != 0) {
        fprintf(stderr, "jack_transport_rec: cannot write %s\n", argv[3]);
        return 73;
    }
    char transport_name[4096];
    snprintf(transport_name, sizeof transport_name, "%s.transport", argv[3]);
    FILE *transport = fopen(transport_name, "w");
    if (!transport) return 73;
    uint64_t count = atomic_load(&cycle_count);
    for (uint64_t i = 0; i < count; i++) {
        fprintf(transport, "%llu ", (unsigned long long)cycles[i].at);
        print_position(transport, cycles[i].state, &cycles[i].position);
    }
    return fclose(transport) == 0 ? 0 : 73;
}
