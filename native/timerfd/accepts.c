/*
 * Every connection waiting on a listening socket, accepted in one call. libuv accepts one
 * connection per event-loop turn (since 1.45, Node 20), leaving the rest to the next epoll: fine
 * where turns are short, but a proxy's turns hold its clients' traffic, so a burst of fifty
 * clients took fifty turns, and the last one's first request waited behind all of them
 * (docs/precision.md, "The 50-client maxima are the accept queue"). Each call here ends at the
 * first error, EAGAIN included, so libuv's own accept sees whatever needs handling (EMFILE).
 *
 * JavaScript API (src/link/native-alarm.ts, src/proxy/pending-accepts.ts):
 *   acceptPending(fd, out, max)  accept4()s up to max connections (and out's length) of listening
 *                                socket fd, non-blocking and close-on-exec, into out (an Int32Array);
 *                                returns how many
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sys/socket.h>
#include <node_api.h>
#include "accepts.h"

static napi_value accept_pending(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3], result;
  int32_t fd = -1, max = 0;
  napi_typedarray_type type;
  size_t length = 0;
  void *data = NULL;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 3 || napi_get_value_int32(env, argv[0], &fd) != napi_ok ||
      napi_get_typedarray_info(env, argv[1], &type, &length, &data, NULL, NULL) != napi_ok || type != napi_int32_array ||
      napi_get_value_int32(env, argv[2], &max) != napi_ok || fd < 0) {
    napi_throw_type_error(env, NULL, "accepts: acceptPending(fd, Int32Array, max) needs a listening fd");
    return NULL;
  }
  int32_t *out = data;
  size_t n = 0;
  size_t limit = max < 0 ? 0 : (size_t)max < length ? (size_t)max : length;
  while (n < limit) {
    int c = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (c >= 0) {
      out[n++] = c;
      continue;
    }
    /* As libuv does: an interrupted call is retried, a connection reset before its accept skipped. */
    if (errno == EINTR || errno == ECONNABORTED) continue;
    break;
  }
  if (napi_create_int32(env, (int32_t)n, &result) != napi_ok) return NULL;
  return result;
}

napi_status register_accepts(napi_env env, napi_value exports) {
  napi_property_descriptor props[] = {
      {"acceptPending", NULL, accept_pending, NULL, NULL, NULL, napi_default, NULL},
  };
  return napi_define_properties(env, exports, sizeof props / sizeof props[0], props);
}
