/* The floor of NETWORK_BLOCKLIST and the ranges blocked by default, as data. Parsed with the
 * same parser as user rules when a rule set is made, so a typo here fails every test. */
#include "lib/net/net-rules-floor.h"
#include "shared/macro.h"

/* clang-format off */
#define FLOOR(p, why)   { .pattern = p, .floor = true, .reason = "floor: " why }
#define DEFAULT(p, why) { .pattern = p, .floor = false, .reason = why " (liftable by an exception)" }
/* clang-format on */

const struct cordon_net_builtin cordon_net_builtins[] = {
    /* Addresses that lead back into the host or onto the local link. IPv4-mapped IPv6
     * forms (::ffff:127.0.0.1) need no entries of their own: the matcher checks a mapped
     * address as the IPv4 address it carries. */
    FLOOR("127.0.0.0/8", "loopback"),
    FLOOR("::1", "loopback"),
    FLOOR("169.254.0.0/16", "link-local"),
    FLOOR("fe80::/10", "link-local"),
    FLOOR("0.0.0.0/8", "unspecified address"),
    FLOOR("::", "unspecified address"),
    FLOOR("224.0.0.0/4", "multicast"),
    FLOOR("ff00::/8", "multicast"),
    FLOOR("255.255.255.255", "broadcast"),

    /* Ports closed on every destination: SMTP and its submission ports (the identity-hijack
     * threat: mail sent as the user), DNS over TLS (a resolver the policy does not see),
     * and the legacy r-services and friends (telnet, finger, ident, rexec, rlogin, rsh). */
    FLOOR("24", "mail port"),
    FLOOR("25", "mail port"),
    FLOOR("465", "mail port"),
    FLOOR("587", "mail port"),
    FLOOR("2525", "mail port"),
    FLOOR("853", "DNS-over-TLS port"),
    FLOOR("23", "legacy remote-service port"),
    FLOOR("79", "legacy remote-service port"),
    FLOOR("113", "legacy remote-service port"),
    FLOOR("512", "legacy remote-service port"),
    FLOOR("513", "legacy remote-service port"),
    FLOOR("514", "legacy remote-service port"),

    /* Transactional mail over HTTPS: mail without an SMTP port. */
    FLOOR("api.mailgun.net", "mail API"),
    FLOOR("api.eu.mailgun.net", "mail API"),
    FLOOR("api.sendgrid.com", "mail API"),
    FLOOR("api.postmarkapp.com", "mail API"),
    FLOOR("api.mailjet.com", "mail API"),
    FLOOR("api.sparkpost.com", "mail API"),
    FLOOR("api.eu.sparkpost.com", "mail API"),
    FLOOR("api.brevo.com", "mail API"),
    FLOOR("api.sendinblue.com", "mail API"),
    FLOOR("mandrillapp.com", "mail API"),
    FLOOR("api.resend.com", "mail API"),
    FLOOR("api.smtp2go.com", "mail API"),
    FLOOR("api.elasticemail.com", "mail API"),
    FLOOR("api.mailersend.com", "mail API"),

    /* Webhooks that post into chats and mailboxes. Only hosts that serve nothing but
     * webhooks are here: Discord's webhooks live under discord.com/api/webhooks/, the same
     * host as the rest of its API, and a host rule cannot tell them apart (a URL path is
     * not visible in a CONNECT tunnel), so Discord is left to the site's own rules. */
    FLOOR("hooks.slack.com", "webhook"),
    FLOOR("*.webhook.office.com", "webhook"),
    FLOOR("hooks.zapier.com", "webhook"),
    FLOOR("maker.ifttt.com", "webhook"),
    /* webhook.site exists to collect requests; its per-token subdomains too. */
    FLOOR("webhook.site", "webhook"),
    FLOOR("*.webhook.site", "webhook"),

    /* Anonymous file drops. */
    FLOOR("transfer.sh", "file drop"),
    FLOOR("0x0.st", "file drop"),
    FLOOR("file.io", "file drop"),
    FLOOR("temp.sh", "file drop"),
    FLOOR("bashupload.com", "file drop"),
    FLOOR("oshi.at", "file drop"),
    FLOOR("catbox.moe", "file drop"),
    FLOOR("litter.catbox.moe", "file drop"),
    FLOOR("tmpfiles.org", "file drop"),
    FLOOR("gofile.io", "file drop"),
    FLOOR("*.gofile.io", "file drop"), /* uploads go to storeN.gofile.io */
    FLOOR("pixeldrain.com", "file drop"),
    FLOOR("uguu.se", "file drop"),
    FLOOR("keep.sh", "file drop"),

    /* Public paste services. */
    FLOOR("pastebin.com", "paste site"),
    FLOOR("paste.ee", "paste site"),
    FLOOR("hastebin.com", "paste site"),
    FLOOR("ix.io", "paste site"),
    FLOOR("sprunge.us", "paste site"),
    FLOOR("termbin.com", "paste site"),
    FLOOR("dpaste.com", "paste site"),
    FLOOR("dpaste.org", "paste site"),
    FLOOR("paste.rs", "paste site"),
    FLOOR("rentry.co", "paste site"),
    FLOOR("ghostbin.co", "paste site"),
    FLOOR("controlc.com", "paste site"),
    FLOOR("privatebin.net", "paste site"),

    /* DNS over HTTPS: a resolver inside HTTPS escapes the proxy's view of names and makes
     * a tunnel for data. */
    FLOOR("cloudflare-dns.com", "DNS-over-HTTPS"),
    FLOOR("*.cloudflare-dns.com", "DNS-over-HTTPS"),
    FLOOR("one.one.one.one", "DNS-over-HTTPS"),
    FLOOR("dns.google", "DNS-over-HTTPS"),
    FLOOR("dns.google.com", "DNS-over-HTTPS"),
    FLOOR("dns.quad9.net", "DNS-over-HTTPS"),
    FLOOR("dns9.quad9.net", "DNS-over-HTTPS"),
    FLOOR("dns10.quad9.net", "DNS-over-HTTPS"),
    FLOOR("dns11.quad9.net", "DNS-over-HTTPS"),
    FLOOR("doh.opendns.com", "DNS-over-HTTPS"),
    FLOOR("dns.adguard.com", "DNS-over-HTTPS"),
    FLOOR("dns.adguard-dns.com", "DNS-over-HTTPS"),
    FLOOR("dns.nextdns.io", "DNS-over-HTTPS"),
    FLOOR("doh.cleanbrowsing.org", "DNS-over-HTTPS"),
    FLOOR("doh.mullvad.net", "DNS-over-HTTPS"),
    FLOOR("dns.mullvad.net", "DNS-over-HTTPS"),
    /* 1dot1dot1dot1, security. and family.cloudflare-dns.com fall under *.cloudflare-dns.com
     * but are listed for the reader who greps for them. */
    FLOOR("1dot1dot1dot1.cloudflare-dns.com", "DNS-over-HTTPS"),
    FLOOR("security.cloudflare-dns.com", "DNS-over-HTTPS"),
    FLOOR("family.cloudflare-dns.com", "DNS-over-HTTPS"),

    /* Blocked by default, liftable by an exception of equal or higher specificity: the
     * host's LAN and the provider's networks are not the internet, but a site may need one
     * of its own hosts there. */
    DEFAULT("10.0.0.0/8", "private range"),
    DEFAULT("172.16.0.0/12", "private range"),
    DEFAULT("192.168.0.0/16", "private range"),
    DEFAULT("100.64.0.0/10", "shared address space"),
    DEFAULT("fc00::/7", "unique local range"),
};

const size_t cordon_net_n_builtins = ELEMENTSOF(cordon_net_builtins);
