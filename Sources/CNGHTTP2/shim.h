// libnghttp2, as Debian's libnghttp2-dev installs it: the HTTP/2 framing layer of the APNs
// gateway's nghttp2 transport (PushwireAPNs/NGHTTP2*.swift). Swift calls it directly; nothing here
// needs a wrapper.
#include <nghttp2/nghttp2.h>
