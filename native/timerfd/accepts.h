/* The accept burst (accepts.c): adds acceptPending to the addon's exports. */
#ifndef REDIS_RTT_ACCEPTS_H
#define REDIS_RTT_ACCEPTS_H
#include <node_api.h>
napi_status register_accepts(napi_env env, napi_value exports);
#endif
