/*
 * Calls a JavaScript callback with no arguments from a libuv callback on the main thread (the
 * alarm's expiry in timerfd.c, a loop turn in turns.c): in a handle scope of its own, through
 * the async context, and an exception it throws is uncaught, as from any I/O callback.
 */
#ifndef REDIS_RTT_CALL_JS_H
#define REDIS_RTT_CALL_JS_H
#include <node_api.h>

static inline void call_js(napi_env env, napi_ref callback, napi_async_context async) {
  napi_handle_scope scope;
  if (napi_open_handle_scope(env, &scope) != napi_ok) return;
  napi_value cb, recv, result;
  if (napi_get_reference_value(env, callback, &cb) == napi_ok && napi_get_global(env, &recv) == napi_ok) {
    if (napi_make_callback(env, async, recv, cb, 0, NULL, &result) == napi_pending_exception) {
      napi_value err;
      if (napi_get_and_clear_last_exception(env, &err) == napi_ok) napi_fatal_exception(env, err);
    }
  }
  napi_close_handle_scope(env, scope);
}

#endif
