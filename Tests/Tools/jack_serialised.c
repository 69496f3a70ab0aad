/* libjack with its requests to the server made one at a time, for Ardour 7.3.
 *
 *   clang -shared -Wl,-soname,REAL -o STUB -x c /dev/null
 *   clang -shared -fPIC -Wl,-soname,libjack.so.0 -Wl,--no-as-needed -o SHIM jack_serialised.c STUB
 *   LD_PRELOAD=SHIM ardour7-lua ...
 *
 * (REAL the real libjack's absolute path, /usr/lib/x86_64-linux-gnu/libjack.so.0.)
 *
 * On jackd2 1.9.21 about a third of Ardour 7.3's session loads end in
 * "JACK HALTED": two of its threads send requests down the client's one
 * socket to the server at once and the replies cross. This library stands in
 * for libjack: its soname is libjack.so.0, so once preloaded it is what
 * libardour's link to libjack.so.0 and Ardour's dlopen("libjack.so.0") find.
 * It depends on the real library by path (the empty STUB only lends the
 * link that path as its soname), so every symbol it does not define is the
 * real library's, looked up through it: what the process thread calls
 * (buffers, frame times, the transport's query) goes straight there. It
 * defines only the calls that are requests to the server (registering and
 * connecting ports, activating, closing, the timebase, metadata), and makes
 * each under one lock. Used by the Ardour tests; built by them with the
 * Swift toolchain's clang.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* The real function: the next definition after this library's, in the real
 * library it depends on. */
static void *real_symbol(const char *name) {
    void *symbol = dlsym(RTLD_NEXT, name);
    if (!symbol) {
        fprintf(stderr, "jack_serialised: no %s after this library: %s\n", name, dlerror());
        abort();
    }
    return symbol;
}

/* A request to the server: the real function, called under the one lock.
 * Recursive, should a callback run inside a request make another. */
static pthread_mutex_t requests = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

#define SERIALISED(result, name, parameters, arguments) \
    result name parameters { \
        static result (*real) parameters; \
        if (!real) real = (result (*) parameters)real_symbol(#name); \
        pthread_mutex_lock(&requests); \
        result returned = real arguments; \
        pthread_mutex_unlock(&requests); \
        return returned; \
    }

typedef void client_t, port_t, session_event_t;
typedef uint32_t nframes_t;
typedef uint64_t uuid_t;
typedef void (*timebase_callback_t)(void);

SERIALISED(int, jack_client_close, (client_t *c), (c))
SERIALISED(int, jack_activate, (client_t *c), (c))
SERIALISED(int, jack_deactivate, (client_t *c), (c))
SERIALISED(port_t *, jack_port_register, (client_t *c, const char *name, const char *type, unsigned long flags, unsigned long size),
           (c, name, type, flags, size))
SERIALISED(int, jack_port_unregister, (client_t *c, port_t *p), (c, p))
SERIALISED(int, jack_connect, (client_t *c, const char *source, const char *destination), (c, source, destination))
SERIALISED(int, jack_disconnect, (client_t *c, const char *source, const char *destination), (c, source, destination))
SERIALISED(int, jack_port_disconnect, (client_t *c, port_t *p), (c, p))
SERIALISED(int, jack_port_rename, (client_t *c, port_t *p, const char *name), (c, p, name))
SERIALISED(int, jack_port_set_name, (port_t *p, const char *name), (p, name))
SERIALISED(int, jack_set_buffer_size, (client_t *c, nframes_t frames), (c, frames))
SERIALISED(int, jack_set_freewheel, (client_t *c, int on), (c, on))
SERIALISED(int, jack_set_timebase_callback, (client_t *c, int conditional, timebase_callback_t callback, void *argument),
           (c, conditional, callback, argument))
SERIALISED(int, jack_release_timebase, (client_t *c), (c))
SERIALISED(int, jack_session_reply, (client_t *c, session_event_t *event), (c, event))
SERIALISED(int, jack_recompute_total_latencies, (client_t *c), (c))
SERIALISED(int, jack_set_property, (client_t *c, uuid_t subject, const char *key, const char *value, const char *type),
           (c, subject, key, value, type))
SERIALISED(int, jack_remove_property, (client_t *c, uuid_t subject, const char *key), (c, subject, key))
SERIALISED(int, jack_remove_properties, (client_t *c, uuid_t subject), (c, subject))
SERIALISED(int, jack_remove_all_properties, (client_t *c), (c))
SERIALISED(char *, jack_get_uuid_for_client_name, (client_t *c, const char *name), (c, name))
SERIALISED(char *, jack_get_client_name_by_uuid, (client_t *c, const char *uuid), (c, uuid))
