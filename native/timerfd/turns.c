/*
 * A call into JavaScript once per turn of the main thread's event loop, for as long as it is
 * started, with nothing allocated on the JavaScript heap per turn. A scheduler that polls the
 * clock between reads does it with setImmediate, which makes an Immediate (and the garbage around
 * it) per turn: at hundreds of thousands of turns a second that is a scavenge every few tens of
 * milliseconds, and a send or a delivery due during one waits for it (docs/precision.md). Here a
 * uv_idle handle keeps the loop from blocking in epoll while started, and a uv_check handle, run
 * after each poll phase (where Immediates run), makes the call.
 *
 * JavaScript API (src/link/native-alarm.ts):
 *   const t = createTurns(onTurn)  onTurn() runs on the main thread after each loop turn's I/O while started
 *   startTurns(t)                  from the next turn on; keeps the process alive while started
 *   stopTurns(t)                   no more calls (from inside onTurn too)
 *   closeTurns(t)                  stop and free; unusable after
 */
#define NAPI_VERSION 8
#include <stdlib.h>
#include <node_api.h>
#include <uv.h>
#include "call-js.h"
#include "turns.h"

typedef struct {
  uv_idle_t idle;
  uv_check_t check;
  int closed;
  /* Freed once all three are done: libuv's close of both handles, and V8's collection of the external. */
  int handles_closed;
  int finalized;
  napi_env env;
  napi_ref callback;
  napi_async_context async;
} turns_t;

static void free_if_done(turns_t *t) {
  if (t->handles_closed == 2 && t->finalized) free(t);
}

static void on_closed(uv_handle_t *handle) {
  turns_t *t = handle->data;
  t->handles_closed++;
  free_if_done(t);
}

static void on_finalized(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  turns_t *t = data;
  t->finalized = 1;
  free_if_done(t);
}

/* Nothing to do: an active idle handle only makes the loop poll without blocking. */
static void on_idle(uv_idle_t *idle) {
  (void)idle;
}

static void on_check(uv_check_t *check) {
  turns_t *t = check->data;
  if (t->closed) return;
  call_js(t->env, t->callback, t->async);
}

static void shut(turns_t *t, int tearing_down) {
  if (t->closed) return;
  t->closed = 1;
  uv_idle_stop(&t->idle);
  uv_check_stop(&t->check);
  if (!tearing_down) {
    napi_async_destroy(t->env, t->async);
    napi_delete_reference(t->env, t->callback);
  }
  /* In teardown no callback of ours may run after Node unloads this library (timerfd.c says why). */
  uv_close((uv_handle_t *)&t->idle, tearing_down ? NULL : on_closed);
  uv_close((uv_handle_t *)&t->check, tearing_down ? NULL : on_closed);
}

static void on_env_cleanup(void *arg) {
  shut(arg, 1);
}

static turns_t *unwrap_turns(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  turns_t *t = NULL;
  napi_valuetype type;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1 || napi_typeof(env, argv[0], &type) != napi_ok ||
      type != napi_external || napi_get_value_external(env, argv[0], (void **)&t) != napi_ok || t == NULL || t->closed) {
    napi_throw_type_error(env, NULL, "turns: not an open turn hook");
    return NULL;
  }
  return t;
}

static napi_value create_turns(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1], name, out;
  napi_valuetype type = napi_undefined;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1 || napi_typeof(env, argv[0], &type) != napi_ok ||
      type != napi_function) {
    napi_throw_type_error(env, NULL, "turns: createTurns(onTurn) needs a function");
    return NULL;
  }
  uv_loop_t *loop;
  if (napi_get_uv_event_loop(env, &loop) != napi_ok || napi_create_string_utf8(env, "redis-rtt turns", NAPI_AUTO_LENGTH, &name) != napi_ok) {
    napi_throw_error(env, NULL, "turns: no event loop");
    return NULL;
  }
  turns_t *t = calloc(1, sizeof *t);
  if (t == NULL) {
    napi_throw_error(env, NULL, "turns: out of memory");
    return NULL;
  }
  t->env = env;
  uv_idle_init(loop, &t->idle);
  uv_check_init(loop, &t->check);
  t->idle.data = t;
  t->check.data = t;
  if (napi_create_reference(env, argv[0], 1, &t->callback) != napi_ok || napi_async_init(env, NULL, name, &t->async) != napi_ok ||
      napi_create_external(env, t, on_finalized, NULL, &out) != napi_ok) {
    if (t->callback != NULL) napi_delete_reference(env, t->callback);
    t->closed = 1;
    t->finalized = 1; /* no JS handle was made */
    uv_close((uv_handle_t *)&t->idle, on_closed);
    uv_close((uv_handle_t *)&t->check, on_closed);
    napi_throw_error(env, NULL, "turns: could not create the turn hook");
    return NULL;
  }
  if (napi_add_env_cleanup_hook(env, on_env_cleanup, t) != napi_ok) {
    napi_throw_error(env, NULL, "turns: could not add the cleanup hook");
    return NULL;
  }
  return out;
}

static napi_value start_turns(napi_env env, napi_callback_info info) {
  turns_t *t = unwrap_turns(env, info);
  if (t == NULL) return NULL;
  uv_idle_start(&t->idle, on_idle);
  uv_check_start(&t->check, on_check);
  return NULL;
}

static napi_value stop_turns(napi_env env, napi_callback_info info) {
  turns_t *t = unwrap_turns(env, info);
  if (t == NULL) return NULL;
  uv_idle_stop(&t->idle);
  uv_check_stop(&t->check);
  return NULL;
}

static napi_value close_turns(napi_env env, napi_callback_info info) {
  turns_t *t = unwrap_turns(env, info);
  if (t == NULL) return NULL;
  napi_remove_env_cleanup_hook(env, on_env_cleanup, t);
  shut(t, 0);
  return NULL;
}

napi_status register_turns(napi_env env, napi_value exports) {
  napi_property_descriptor props[] = {
      {"createTurns", NULL, create_turns, NULL, NULL, NULL, napi_default, NULL},
      {"startTurns", NULL, start_turns, NULL, NULL, NULL, napi_default, NULL},
      {"stopTurns", NULL, stop_turns, NULL, NULL, NULL, napi_default, NULL},
      {"closeTurns", NULL, close_turns, NULL, NULL, NULL, napi_default, NULL},
  };
  return napi_define_properties(env, exports, sizeof props / sizeof props[0], props);
}
