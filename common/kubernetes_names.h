#pragma once

#include <string_view>

// The rules Kubernetes names follow, where both processes check one.
namespace netscore {

// A DNS subdomain as Kubernetes validates it (IsDNS1123Subdomain in k8s.io/apimachinery): at most
// 253 bytes of lowercase alphanumerics, '-' and '.', each dot-separated part starting and ending
// alphanumeric. Node names and the prefix of a qualified label key are such names; a scrape address
// (`10.0.0.2:9100`) is not. Pure.
bool is_dns_subdomain(std::string_view name);

}  // namespace netscore
