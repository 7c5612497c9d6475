// The part of the NATS C client (libnats 3.x) that juice calls, declared here rather
// than read from the system's <nats/nats.h>: the package builds the same on a machine
// with libnats-dev and on one without it, and the library is found when the first
// NATS connection is set up (`juice_nats_load`), not when juice is built or started.
// Installing libnats later gives the very binary built before its fleet.
//
// What is declared must match libnats' ABI exactly, so the loader checks the version
// of the library it opened (`nats_GetVersionNumber`) against the range below before
// anything else is called. The structs are laid out as libnats 3.4.1 lays them out
// (loader.c asserts the offsets its header gives), and every field juice reads or
// writes keeps that offset up to 3.12: later versions only append fields to these
// structs, with two exceptions juice steps around. `jsOptions` gained fields before
// its `Stream` block (3.9, 3.11), which juice never sets; `jsSubOptions` holds the
// consumer's settings by value, so its `Ordered` moves as they grow, and juice sets it
// through `juice_nats_set_ordered`, which knows where each version keeps it. A struct
// juice passes to an `_Init` function carries a reserve after its last field, which a
// newer library's `_Init` (it clears its own, larger struct: 336 bytes at most in 3.12)
// clears without writing past juice's memory.
//
// Only what juice uses is declared: the handles are opaque, an enum lists the values
// juice names (a library value it does not name is still a value of the type). As in
// libnats' own header, no pointer is marked nullable or not: Swift sees each as
// implicitly unwrapped, and the NATS client checks what it is handed.
#ifndef JUICE_NATS_H
#define JUICE_NATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/// The oldest and the newest libnats whose layout of the structs below juice knows,
/// as `nats_GetVersionNumber` answers (major << 16 | minor << 8 | patch).
#define JUICE_NATS_OLDEST_VERSION 0x030400u
#define JUICE_NATS_BEYOND_VERSION 0x030D00u

// MARK: - Handles

typedef struct __natsConnection natsConnection;
typedef struct __natsSubscription natsSubscription;
typedef struct __natsMsg natsMsg;
typedef struct __natsOptions natsOptions;
typedef struct __jsCtx jsCtx;

// MARK: - Statuses

/// What a libnats call answers. Every value up to the last juice names, in the
/// library's order: the numbers are the ABI.
typedef enum {
    NATS_OK = 0,
    NATS_ERR,
    NATS_PROTOCOL_ERROR,
    NATS_IO_ERROR,
    NATS_LINE_TOO_LONG,
    NATS_CONNECTION_CLOSED,
    NATS_NO_SERVER,
    NATS_STALE_CONNECTION,
    NATS_SECURE_CONNECTION_WANTED,
    NATS_SECURE_CONNECTION_REQUIRED,
    NATS_CONNECTION_DISCONNECTED,
    NATS_CONNECTION_AUTH_FAILED,
    NATS_NOT_PERMITTED,
    NATS_NOT_FOUND,
    NATS_ADDRESS_MISSING,
    NATS_INVALID_SUBJECT,
    NATS_INVALID_ARG,
    NATS_INVALID_SUBSCRIPTION,
    NATS_INVALID_TIMEOUT,
    NATS_ILLEGAL_STATE,
    NATS_SLOW_CONSUMER,
    NATS_MAX_PAYLOAD,
    NATS_MAX_DELIVERED_MSGS,
    NATS_INSUFFICIENT_BUFFER,
    NATS_NO_MEMORY,
    NATS_SYS_ERROR,
    NATS_TIMEOUT,
    NATS_FAILED_TO_INITIALIZE,
    NATS_NOT_INITIALIZED,
    NATS_SSL_ERROR,
    NATS_NO_SERVER_SUPPORT,
    NATS_NOT_YET_CONNECTED,
    NATS_DRAINING,
    NATS_INVALID_QUEUE_NAME,
    NATS_NO_RESPONDERS,
    NATS_MISMATCH,
    NATS_MISSED_HEARTBEAT,
} natsStatus;

/// A connection's state.
typedef enum {
    NATS_CONN_STATUS_DISCONNECTED = 0,
    NATS_CONN_STATUS_CONNECTING,
    NATS_CONN_STATUS_CONNECTED,
    NATS_CONN_STATUS_CLOSED,
    NATS_CONN_STATUS_RECONNECTING,
    NATS_CONN_STATUS_DRAINING_SUBS,
    NATS_CONN_STATUS_DRAINING_PUBS,
} natsConnStatus;

/// The JetStream API's error code (the server's `err_code`, 10002 and up); juice reads
/// it as a number.
typedef enum {
    JSNoJetStreamErrorCode = 0,
} jsErrCode;

// MARK: - Policies

typedef enum { js_LimitsPolicy = 0, js_InterestPolicy, js_WorkQueuePolicy } jsRetentionPolicy;
typedef enum { js_DiscardOld = 0, js_DiscardNew } jsDiscardPolicy;
typedef enum { js_FileStorage = 0, js_MemoryStorage } jsStorageType;
typedef enum {
    js_DeliverAll = 0,
    js_DeliverLast,
    js_DeliverNew,
    js_DeliverByStartSequence,
    js_DeliverByStartTime,
    js_DeliverLastPerSubject,
} jsDeliverPolicy;
typedef enum { js_AckExplicit = 0, js_AckNone, js_AckAll } jsAckPolicy;
typedef enum { js_ReplayInstant = 0, js_ReplayOriginal } jsReplayPolicy;

// MARK: - Structs read from the library

/// Messages a fetch or the pending list hands over; `Msgs[i]` set to NULL is kept by
/// the caller when the list is destroyed.
typedef struct natsMsgList {
    natsMsg **Msgs;
    int Count;
} natsMsgList;

typedef struct jsStreamState {
    uint64_t Msgs;
    uint64_t Bytes;
    uint64_t FirstSeq;
    int64_t FirstTime;
    uint64_t LastSeq;
    int64_t LastTime;
    int64_t NumSubjects;
    void *Subjects;
    uint64_t NumDeleted;
    uint64_t *Deleted;
    int DeletedLen;
    void *Lost;
    int64_t Consumers;
} jsStreamState;

struct jsStreamConfig;
struct jsConsumerConfig;

typedef struct jsStreamInfo {
    struct jsStreamConfig *Config;
    int64_t Created;
    jsStreamState State;
    // Fields after these (cluster, mirror, sources) are the library's; juice reads none.
} jsStreamInfo;

typedef struct jsSequencePair {
    uint64_t Consumer;
    uint64_t Stream;
} jsSequencePair;

typedef struct jsSequenceInfo {
    uint64_t Consumer;
    uint64_t Stream;
    int64_t Last;
} jsSequenceInfo;

typedef struct jsConsumerInfo {
    char *Stream;
    char *Name;
    int64_t Created;
    struct jsConsumerConfig *Config;
    jsSequenceInfo Delivered;
    jsSequenceInfo AckFloor;
    int64_t NumAckPending;
    int64_t NumRedelivered;
    int64_t NumWaiting;
    uint64_t NumPending;
    // Fields after these are the library's; juice reads none.
} jsConsumerInfo;

typedef struct jsMsgMetaData {
    jsSequencePair Sequence;
    uint64_t NumDelivered;
    uint64_t NumPending;
    int64_t Timestamp;
    char *Stream;
    char *Consumer;
    char *Domain;
} jsMsgMetaData;

typedef struct jsPubAck {
    char *Stream;
    uint64_t Sequence;
    char *Domain;
    bool Duplicate;
} jsPubAck;

typedef struct jsPubAckErr {
    natsMsg *Msg;
    natsStatus Err;
    jsErrCode ErrCode;
    const char *ErrText;
} jsPubAckErr;

typedef void (*jsPubAckErrHandler)(jsCtx *js, jsPubAckErr *error, void *closure);
typedef void (*jsPubAckHandler)(
    jsCtx *js, natsMsg *message, jsPubAck *ack, jsPubAckErr *error, void *closure);
typedef void (*natsConnectionHandler)(natsConnection *connection, void *closure);

// MARK: - Structs juice fills (after the library's `_Init`)

/// Room after a struct's last declared field for the fields a newer libnats adds at
/// its end, which that library's `_Init` clears and its calls read as zero (see the top
/// of this file). A struct of these types that the library allocated (the `Config` of
/// a stream's or a consumer's info) is the library's size, smaller than this one:
/// read and write its fields through the pointer, never copy it as a value.
#define JUICE_NATS_RESERVE(bytes) unsigned char juice_reserved[bytes]

typedef struct jsStreamConfig {
    const char *Name;
    const char *Description;
    const char **Subjects;
    int SubjectsLen;
    jsRetentionPolicy Retention;
    int64_t MaxConsumers;
    int64_t MaxMsgs;
    int64_t MaxBytes;
    int64_t MaxAge;
    int64_t MaxMsgsPerSubject;
    int32_t MaxMsgSize;
    jsDiscardPolicy Discard;
    jsStorageType Storage;
    int64_t Replicas;
    bool NoAck;
    const char *Template;
    int64_t Duplicates;
    void *Placement;
    void *Mirror;
    void **Sources;
    int SourcesLen;
    bool Sealed;
    bool DenyDelete;
    bool DenyPurge;
    bool AllowRollup;
    void *RePublish;
    bool AllowDirect;
    bool MirrorDirect;
    bool DiscardNewPerSubject;
    JUICE_NATS_RESERVE(512);
} jsStreamConfig;

/// The consumer's settings as libnats 3.4 declares them. It is also the `Config` of
/// `jsSubOptions`, by value, where no reserve may follow it (the library reads the
/// fields after it at its own offsets): `jsSubOptions` carries its reserve at its end.
#define JUICE_NATS_CONSUMER_FIELDS \
    const char *Name; \
    const char *Durable; \
    const char *Description; \
    jsDeliverPolicy DeliverPolicy; \
    uint64_t OptStartSeq; \
    int64_t OptStartTime; \
    jsAckPolicy AckPolicy; \
    int64_t AckWait; \
    int64_t MaxDeliver; \
    int64_t *BackOff; \
    int BackOffLen; \
    const char *FilterSubject; \
    jsReplayPolicy ReplayPolicy; \
    uint64_t RateLimit; \
    const char *SampleFrequency; \
    int64_t MaxWaiting; \
    int64_t MaxAckPending; \
    bool FlowControl; \
    int64_t Heartbeat; \
    bool HeadersOnly; \
    int64_t MaxRequestBatch; \
    int64_t MaxRequestExpires; \
    int64_t MaxRequestMaxBytes; \
    const char *DeliverSubject; \
    const char *DeliverGroup; \
    int64_t InactiveThreshold; \
    int64_t Replicas; \
    bool MemoryStorage;

typedef struct jsConsumerConfig {
    JUICE_NATS_CONSUMER_FIELDS
    JUICE_NATS_RESERVE(512);
} jsConsumerConfig;

/// `Config` is the consumer's settings without a reserve: the same fields, in place.
typedef struct jsSubOptionsConsumer {
    JUICE_NATS_CONSUMER_FIELDS
} jsSubOptionsConsumer;

/// A subscription's options. Where `Ordered` is depends on the library's version (the
/// consumer's settings before it grew in 3.7, 3.8 and 3.11): set it with
/// `juice_nats_set_ordered`, never by offset.
typedef struct jsSubOptions {
    const char *Stream;
    const char *Consumer;
    const char *Queue;
    bool ManualAck;
    jsSubOptionsConsumer Config;
    JUICE_NATS_RESERVE(512);
} jsSubOptions;

typedef struct jsPubOptions {
    int64_t MaxWait;
    const char *MsgId;
    const char *ExpectStream;
    const char *ExpectLastMsgId;
    uint64_t ExpectLastSeq;
    uint64_t ExpectLastSubjectSeq;
    bool ExpectNoMessage;
    JUICE_NATS_RESERVE(256);
} jsPubOptions;

typedef struct jsOptions {
    const char *Prefix;
    const char *Domain;
    int64_t Wait;
    struct jsOptionsPublishAsync {
        int64_t MaxPending;
        jsPubAckHandler AckHandler;
        void *AckHandlerClosure;
        jsPubAckErrHandler ErrHandler;
        void *ErrHandlerClosure;
        int64_t StallWait;
    } PublishAsync;
    struct jsOptionsStream {
        struct jsOptionsStreamPurge {
            const char *Subject;
            uint64_t Sequence;
            uint64_t Keep;
        } Purge;
        struct jsOptionsStreamInfo {
            bool DeletedDetails;
            const char *SubjectsFilter;
        } Info;
    } Stream;
    JUICE_NATS_RESERVE(512);
} jsOptions;

// MARK: - The functions

/// Each function juice calls: X(return type, name, parameters). The loader looks each
/// up by name; the table below holds them with these types.
#define JUICE_NATS_FUNCTIONS(X) \
    X(uint32_t, nats_GetVersionNumber, (void)) \
    X(const char *, nats_GetVersion, (void)) \
    X(const char *, nats_GetLastError, (natsStatus *status)) \
    X(const char *, natsStatus_GetText, (natsStatus status)) \
    X(natsStatus, natsOptions_Create, (natsOptions **options)) \
    X(void, natsOptions_Destroy, (natsOptions *options)) \
    X(natsStatus, natsOptions_SetURL, (natsOptions *options, const char *url)) \
    X(natsStatus, natsOptions_SetServers, (natsOptions *options, const char **servers, int count)) \
    X(natsStatus, natsOptions_SetTimeout, (natsOptions *options, int64_t milliseconds)) \
    X(natsStatus, natsOptions_SetName, (natsOptions *options, const char *name)) \
    X(natsStatus, natsOptions_SetToken, (natsOptions *options, const char *token)) \
    X(natsStatus, natsOptions_SetSecure, (natsOptions *options, bool secure)) \
    X(natsStatus, natsOptions_LoadCATrustedCertificates, (natsOptions *options, const char *file)) \
    X(natsStatus, natsOptions_LoadCertificatesChain, (natsOptions *options, const char *certificates, const char *key)) \
    X(natsStatus, natsOptions_SetUserCredentialsFromFiles, (natsOptions *options, const char *user, const char *seed)) \
    X(natsStatus, natsOptions_SetAllowReconnect, (natsOptions *options, bool allow)) \
    X(natsStatus, natsOptions_SetMaxReconnect, (natsOptions *options, int count)) \
    X(natsStatus, natsOptions_SetReconnectWait, (natsOptions *options, int64_t milliseconds)) \
    X(natsStatus, natsOptions_SetDisconnectedCB, \
      (natsOptions *options, natsConnectionHandler handler, void *closure)) \
    X(natsStatus, natsOptions_SetReconnectedCB, \
      (natsOptions *options, natsConnectionHandler handler, void *closure)) \
    X(natsStatus, natsConnection_Connect, (natsConnection **connection, natsOptions *options)) \
    X(natsConnStatus, natsConnection_Status, (natsConnection *connection)) \
    X(void, natsConnection_Close, (natsConnection *connection)) \
    X(void, natsConnection_Destroy, (natsConnection *connection)) \
    X(natsStatus, natsConnection_JetStream, (jsCtx **context, natsConnection *connection, jsOptions *options)) \
    X(void, jsCtx_Destroy, (jsCtx *context)) \
    X(natsStatus, jsOptions_Init, (jsOptions *options)) \
    X(natsStatus, jsPubOptions_Init, (jsPubOptions *options)) \
    X(natsStatus, jsSubOptions_Init, (jsSubOptions *options)) \
    X(natsStatus, jsStreamConfig_Init, (jsStreamConfig *config)) \
    X(natsStatus, jsConsumerConfig_Init, (jsConsumerConfig *config)) \
    X(void, jsStreamInfo_Destroy, (jsStreamInfo *info)) \
    X(void, jsConsumerInfo_Destroy, (jsConsumerInfo *info)) \
    X(void, jsMsgMetaData_Destroy, (jsMsgMetaData *metadata)) \
    X(void, jsPubAck_Destroy, (jsPubAck *ack)) \
    X(natsStatus, js_AddStream, \
      (jsStreamInfo **info, jsCtx *context, jsStreamConfig *config, jsOptions *options, \
       jsErrCode *error)) \
    X(natsStatus, js_UpdateStream, \
      (jsStreamInfo **info, jsCtx *context, jsStreamConfig *config, jsOptions *options, \
       jsErrCode *error)) \
    X(natsStatus, js_DeleteStream, (jsCtx *context, const char *stream, jsOptions *options, jsErrCode *error)) \
    X(natsStatus, js_GetStreamInfo, \
      (jsStreamInfo **info, jsCtx *context, const char *stream, jsOptions *options, \
       jsErrCode *error)) \
    X(natsStatus, js_GetMsg, \
      (natsMsg **message, jsCtx *context, const char *stream, uint64_t sequence, jsOptions *options, \
       jsErrCode *error)) \
    X(natsStatus, js_AddConsumer, \
      (jsConsumerInfo **info, jsCtx *context, const char *stream, jsConsumerConfig *config, \
       jsOptions *options, jsErrCode *error)) \
    X(natsStatus, js_UpdateConsumer, \
      (jsConsumerInfo **info, jsCtx *context, const char *stream, jsConsumerConfig *config, \
       jsOptions *options, jsErrCode *error)) \
    X(natsStatus, js_GetConsumerInfo, \
      (jsConsumerInfo **info, jsCtx *context, const char *stream, const char *consumer, \
       jsOptions *options, jsErrCode *error)) \
    X(natsStatus, js_DeleteConsumer, \
      (jsCtx *context, const char *stream, const char *consumer, jsOptions *options, jsErrCode *error)) \
    X(natsStatus, js_PublishMsg, \
      (jsPubAck **ack, jsCtx *context, natsMsg *message, jsPubOptions *options, \
       jsErrCode *error)) \
    X(natsStatus, js_PublishMsgAsync, (jsCtx *context, natsMsg **message, jsPubOptions *options)) \
    X(natsStatus, js_PublishAsyncComplete, (jsCtx *context, jsPubOptions *options)) \
    X(natsStatus, js_PublishAsyncGetPendingList, (natsMsgList *pending, jsCtx *context)) \
    X(natsStatus, js_PullSubscribe, \
      (natsSubscription **subscription, jsCtx *context, const char *subject, const char *durable, \
       jsOptions *options, jsSubOptions *subscriptionOptions, jsErrCode *error)) \
    X(natsStatus, js_SubscribeSync, \
      (natsSubscription **subscription, jsCtx *context, const char *subject, jsOptions *options, \
       jsSubOptions *subscriptionOptions, jsErrCode *error)) \
    X(natsStatus, natsSubscription_Fetch, \
      (natsMsgList *list, natsSubscription *subscription, int batch, int64_t timeout, jsErrCode *error)) \
    X(natsStatus, natsSubscription_NextMsg, (natsMsg **message, natsSubscription *subscription, int64_t timeout)) \
    X(natsStatus, natsSubscription_Unsubscribe, (natsSubscription *subscription)) \
    X(void, natsMsgList_Destroy, (natsMsgList *list)) \
    X(void, natsSubscription_Destroy, (natsSubscription *subscription)) \
    X(natsStatus, natsMsg_Create, \
      (natsMsg **message, const char *subject, const char *reply, const char *data, \
       int length)) \
    X(void, natsMsg_Destroy, (natsMsg *message)) \
    X(const char *, natsMsg_GetSubject, (const natsMsg *message)) \
    X(const char *, natsMsg_GetData, (const natsMsg *message)) \
    X(int, natsMsg_GetDataLength, (const natsMsg *message)) \
    X(natsStatus, natsMsg_GetMetaData, (jsMsgMetaData **metadata, natsMsg *message)) \
    X(natsStatus, natsMsgHeader_Get, (natsMsg *message, const char *key, const char **value)) \
    X(natsStatus, natsMsgHeader_Set, (natsMsg *message, const char *key, const char *value)) \
    X(natsStatus, natsMsg_AckSync, (natsMsg *message, jsOptions *options, jsErrCode *error)) \
    X(natsStatus, natsMsg_InProgress, (natsMsg *message, jsOptions *options)) \
    X(natsStatus, natsMsg_NakWithDelay, (natsMsg *message, int64_t delay, jsOptions *options)) \
    X(natsStatus, natsMsg_Term, (natsMsg *message, jsOptions *options))

/// The libnats functions juice calls.
struct juice_nats_functions {
#define JUICE_NATS_FIELD(result, name, parameters) result (*name) parameters;
    JUICE_NATS_FUNCTIONS(JUICE_NATS_FIELD)
#undef JUICE_NATS_FIELD
};

/// Loads libnats once per process (the first call; later calls return the first
/// answer). Returns NULL, or a line that says what could not be loaded: no libnats on
/// this machine, a function missing, or a version outside the range above.
const char *juice_nats_load(void);

/// Whether `juice_nats_load` opened a libnats (it may still have failed: a function
/// missing, a version outside the range above).
bool juice_nats_found(void);

/// The names the loader tries, in order (`count` set to how many): the first that
/// loads is the library.
const char *const *juice_nats_library_names(size_t *count);

/// Asks for an ordered consumer (`Ordered`, at the offset the loaded library keeps it),
/// once `juice_nats_load` returned NULL.
void juice_nats_set_ordered(jsSubOptions *options);

/// The functions, once `juice_nats_load` returned NULL; before that, or after it
/// failed, calling one is a crash.
const struct juice_nats_functions *juice_nats(void);

#endif
