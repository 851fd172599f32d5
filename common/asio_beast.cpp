// Boost.Asio and Boost.Beast compiled once for the whole project instead of in every
// translation unit that includes them (see the netscore_asio_beast target).
#include <boost/asio/impl/src.hpp>
#include <boost/beast/src.hpp>
