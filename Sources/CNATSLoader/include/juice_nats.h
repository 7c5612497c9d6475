// The NATS C client (libnats 3.x), loaded when the first NATS connection is set up
// (`juice_nats_load`), not when `juice` starts (start-up rule "loaded when needed",
// the Performance article): linking it would cost every command its loading (it
// brings libssl, libcrypto and libprotobuf-c), and only the fleet's commands and the
// `nats` subscriber talk to NATS. Each field of the table has the type of the function the
// header declares (`__typeof__`), so a call through it is checked as a direct call is.
//
// Debian's libnats-dev installs the header as <nats/nats.h> (and a deprecated
// <nats.h> that includes it); prefer the first.
#if __has_include(<nats/nats.h>)
#include <nats/nats.h>
#else
#include <nats.h>
#endif

#define JUICE_NATS_FUNCTIONS(X) \
    X(jsCtx_Destroy) X(jsMsgMetaData_Destroy) X(jsOptions_Init) X(jsPubAck_Destroy) \
    X(jsPubOptions_Init) X(jsStreamConfig_Init) X(jsStreamInfo_Destroy) X(jsSubOptions_Init) \
    X(jsConsumerConfig_Init) X(jsConsumerInfo_Destroy) X(js_AddConsumer) X(js_DeleteConsumer) X(js_GetConsumerInfo) \
    X(js_UpdateConsumer) X(js_GetMsg) X(js_UpdateStream) \
    X(js_AddStream) X(js_DeleteStream) X(js_GetStreamInfo) X(js_PublishMsg) X(js_PublishMsgAsync) \
    X(js_PublishAsyncComplete) X(js_PublishAsyncGetPendingList) \
    X(js_PullSubscribe) X(js_SubscribeSync) X(natsConnection_Close) X(natsConnection_Connect) \
    X(natsConnection_Destroy) X(natsConnection_JetStream) X(natsConnection_Status) \
    X(natsMsgHeader_Get) X(natsMsgHeader_Set) X(natsMsgList_Destroy) X(natsMsg_AckSync) \
    X(natsMsg_Create) X(natsMsg_Destroy) X(natsMsg_GetData) X(natsMsg_GetDataLength) \
    X(natsMsg_GetMetaData) X(natsMsg_GetSubject) X(natsMsg_InProgress) X(natsMsg_NakWithDelay) \
    X(natsMsg_Term) X(natsOptions_Create) X(natsOptions_Destroy) X(natsOptions_SetAllowReconnect) \
    X(natsOptions_SetMaxReconnect) X(natsOptions_SetName) X(natsOptions_SetReconnectWait) \
    X(natsOptions_SetServers) X(natsOptions_SetTimeout) X(natsOptions_SetToken) \
    X(natsOptions_SetSecure) X(natsOptions_LoadCATrustedCertificates) X(natsOptions_LoadCertificatesChain) \
    X(natsOptions_SetDisconnectedCB) X(natsOptions_SetReconnectedCB) \
    X(natsOptions_SetUserCredentialsFromFiles) X(natsStatus_GetText) X(natsSubscription_Destroy) \
    X(natsSubscription_Fetch) X(natsSubscription_NextMsg) X(natsSubscription_Unsubscribe) \
    X(nats_GetLastError)

/// The libnats functions the NATS plugin calls.
struct juice_nats_functions {
#define JUICE_NATS_FIELD(name) __typeof__(&name) _Nonnull name;
    JUICE_NATS_FUNCTIONS(JUICE_NATS_FIELD)
#undef JUICE_NATS_FIELD
};

/// Loads libnats once per process (the first call; later calls return the first
/// answer). Returns NULL, or a line that says what could not be loaded.
const char *_Nullable juice_nats_load(void);

/// The functions, once `juice_nats_load` returned NULL; before that, or after it
/// failed, calling one is a crash.
const struct juice_nats_functions *_Nonnull juice_nats(void);
