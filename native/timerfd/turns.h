/* The turn hook (turns.c): adds createTurns, startTurns, stopTurns and closeTurns to the addon's exports. */
#ifndef REDIS_RTT_TURNS_H
#define REDIS_RTT_TURNS_H
#include <node_api.h>
napi_status register_turns(napi_env env, napi_value exports);
#endif
