// libcurl (OpenSSL and nghttp2 build), as Debian's libcurl4-openssl-dev installs it.
#include <curl/curl.h>
