/*
 * A sub-millisecond alarm for Node's main thread: a Linux timerfd watched by the main thread's own
 * libuv loop. Arming it is one syscall that wakes nobody; when it expires, epoll wakes the loop,
 * which calls back into JavaScript. Node's timers have whole-millisecond granularity, and the
 * alternative without an addon, a worker thread sleeping in Atomics.wait, costs a wake of that
 * thread to arm it and a second one to fire, plus a message hop (docs/precision.md).
 *
 * JavaScript API (src/link/native-alarm.ts):
 *   const t = create(onWake)  one alarm; onWake() runs on the main thread when it fires
 *   set(t, atNs)              fire at CLOCK_MONOTONIC time atNs (process.hrtime's clock), replacing any earlier
 *                             setting; a time in the past fires at once; keeps the process alive while armed
 *   clear(t)                  disarm
 *   close(t)                  disarm and free; the alarm is unusable after
 * The same addon holds the turn hook (turns.c): a call once per loop turn, for polling.
 */
#define NAPI_VERSION 8
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <unistd.h>
#include <node_api.h>
#include <uv.h>
#include "call-js.h"
#include "turns.h"
#include "accepts.h"

typedef struct {
  uv_poll_t poll;
  int fd;
  int armed;
  int closed;
  /* Freed once both are done: libuv's close of the poll handle, and V8's collection of the handle. */
  int handle_closed;
  int finalized;
  napi_env env;
  napi_ref callback;
  napi_async_context async;
} alarm_t;

#define CHECK(env, call)                                        \
  do {                                                          \
    if ((call) != napi_ok) {                                    \
      napi_throw_error((env), NULL, "timerfd: " #call " failed"); \
      return NULL;                                              \
    }                                                           \
  } while (0)

static napi_value throw_errno(napi_env env, const char *what) {
  char msg[160];
  snprintf(msg, sizeof msg, "timerfd: %s: %s", what, strerror(errno));
  napi_throw_error(env, NULL, msg);
  return NULL;
}

static void on_closed(uv_handle_t *handle) {
  alarm_t *a = handle->data;
  a->handle_closed = 1;
  if (a->finalized) free(a);
}

static void on_finalized(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  alarm_t *a = data;
  a->finalized = 1;
  if (a->handle_closed) free(a);
}

static void disarm(alarm_t *a);

/*
 * Stops and closes; the memory goes once the handle is also collected. From the environment's
 * cleanup hook (a worker thread exiting) no N-API call is made: the environment is being torn
 * down and frees its own references and async contexts.
 */
static void shut(alarm_t *a, int tearing_down) {
  if (a->closed) return;
  disarm(a);
  a->closed = 1;
  uv_poll_stop(&a->poll);
  if (!tearing_down) {
    napi_async_destroy(a->env, a->async);
    napi_delete_reference(a->env, a->callback);
  }
  close(a->fd);
  /* In teardown libuv finishes the close after Node has unloaded this library: no callback of
     ours may run then, so the few bytes of the alarm are left behind. */
  uv_close((uv_handle_t *)&a->poll, tearing_down ? NULL : on_closed);
}

/* A worker thread's environment going away with the alarm still open. */
static void on_env_cleanup(void *arg) {
  shut(arg, 1);
}

static void on_readable(uv_poll_t *poll, int status, int events) {
  (void)events;
  alarm_t *a = poll->data;
  uint64_t expirations;
  /* Non-blocking: EAGAIN when a later set() re-armed the timer after it expired (nothing to run). */
  ssize_t n = read(a->fd, &expirations, sizeof expirations);
  if (status < 0 || n != (ssize_t)sizeof expirations || a->closed) return;
  a->armed = 0;
  uv_unref((uv_handle_t *)&a->poll);
  call_js(a->env, a->callback, a->async);
}

static alarm_t *unwrap(napi_env env, napi_value v) {
  alarm_t *a = NULL;
  napi_valuetype type;
  if (napi_typeof(env, v, &type) != napi_ok || type != napi_external || napi_get_value_external(env, v, (void **)&a) != napi_ok ||
      a == NULL || a->closed) {
    napi_throw_type_error(env, NULL, "timerfd: not an open alarm");
    return NULL;
  }
  return a;
}

/* The call's arguments (up to *argc; missing ones are undefined) and its first, the open alarm; NULL
   with an exception pending. */
static alarm_t *alarm_call(napi_env env, napi_callback_info info, size_t *argc, napi_value *argv) {
  if (napi_get_cb_info(env, info, argc, argv, NULL, NULL) != napi_ok) {
    napi_throw_error(env, NULL, "timerfd: napi_get_cb_info failed");
    return NULL;
  }
  return unwrap(env, argv[0]);
}

static napi_value create(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1], name, out;
  napi_valuetype type = napi_undefined;
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 1 || napi_typeof(env, argv[0], &type) != napi_ok || type != napi_function) {
    napi_throw_type_error(env, NULL, "timerfd: create(onWake) needs a function");
    return NULL;
  }
  uv_loop_t *loop;
  CHECK(env, napi_get_uv_event_loop(env, &loop));
  CHECK(env, napi_create_string_utf8(env, "redis-rtt timerfd", NAPI_AUTO_LENGTH, &name));
  alarm_t *a = calloc(1, sizeof *a);
  if (a == NULL) return throw_errno(env, "calloc");
  a->env = env;
  a->fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
  if (a->fd < 0) {
    free(a);
    return throw_errno(env, "timerfd_create");
  }
  if (uv_poll_init(loop, &a->poll, a->fd) != 0) {
    close(a->fd);
    free(a);
    napi_throw_error(env, NULL, "timerfd: uv_poll_init failed");
    return NULL;
  }
  a->poll.data = a;
  if (uv_poll_start(&a->poll, UV_READABLE, on_readable) != 0 || napi_create_reference(env, argv[0], 1, &a->callback) != napi_ok ||
      napi_async_init(env, NULL, name, &a->async) != napi_ok || napi_create_external(env, a, on_finalized, NULL, &out) != napi_ok) {
    if (a->callback != NULL) napi_delete_reference(env, a->callback);
    close(a->fd);
    a->closed = 1;
    a->finalized = 1; /* no JS handle was made */
    uv_close((uv_handle_t *)&a->poll, on_closed);
    napi_throw_error(env, NULL, "timerfd: could not start the alarm");
    return NULL;
  }
  /* Armed only: an idle alarm does not keep the process alive. */
  uv_unref((uv_handle_t *)&a->poll);
  CHECK(env, napi_add_env_cleanup_hook(env, on_env_cleanup, a));
  return out;
}

static int arm(alarm_t *a, double at_ns) {
  struct itimerspec spec;
  memset(&spec, 0, sizeof spec);
  if (at_ns < 1) at_ns = 1;       /* all zero would disarm: the past fires at once */
  if (at_ns > 4e18) at_ns = 4e18; /* 126 years of uptime: beyond it a time_t cast could overflow */
  spec.it_value.tv_sec = (time_t)floor(at_ns / 1e9);
  spec.it_value.tv_nsec = (long)(at_ns - (double)spec.it_value.tv_sec * 1e9);
  if (spec.it_value.tv_nsec < 0) spec.it_value.tv_nsec = 0;
  if (spec.it_value.tv_nsec > 999999999) spec.it_value.tv_nsec = 999999999;
  return timerfd_settime(a->fd, TFD_TIMER_ABSTIME, &spec, NULL);
}

static napi_value set(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  alarm_t *a = alarm_call(env, info, &argc, argv);
  if (a == NULL) return NULL;
  double at_ns;
  if (argc < 2 || napi_get_value_double(env, argv[1], &at_ns) != napi_ok || !isfinite(at_ns)) {
    napi_throw_type_error(env, NULL, "timerfd: set(alarm, atNs) needs a finite number");
    return NULL;
  }
  if (arm(a, at_ns) != 0) return throw_errno(env, "timerfd_settime");
  if (!a->armed) {
    a->armed = 1;
    uv_ref((uv_handle_t *)&a->poll);
  }
  return NULL;
}

static void disarm(alarm_t *a) {
  struct itimerspec spec;
  memset(&spec, 0, sizeof spec);
  timerfd_settime(a->fd, 0, &spec, NULL);
  if (a->armed) {
    a->armed = 0;
    uv_unref((uv_handle_t *)&a->poll);
  }
}

static napi_value clear(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  alarm_t *a = alarm_call(env, info, &argc, argv);
  if (a == NULL) return NULL;
  disarm(a);
  return NULL;
}

static napi_value close_alarm(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  alarm_t *a = alarm_call(env, info, &argc, argv);
  if (a == NULL) return NULL;
  napi_remove_env_cleanup_hook(env, on_env_cleanup, a);
  shut(a, 0);
  return NULL;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_property_descriptor props[] = {
      {"create", NULL, create, NULL, NULL, NULL, napi_default, NULL},
      {"set", NULL, set, NULL, NULL, NULL, napi_default, NULL},
      {"clear", NULL, clear, NULL, NULL, NULL, napi_default, NULL},
      {"close", NULL, close_alarm, NULL, NULL, NULL, napi_default, NULL},
  };
  if (napi_define_properties(env, exports, sizeof props / sizeof props[0], props) != napi_ok) return NULL;
  if (register_turns(env, exports) != napi_ok) return NULL;
  if (register_accepts(env, exports) != napi_ok) return NULL;
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
