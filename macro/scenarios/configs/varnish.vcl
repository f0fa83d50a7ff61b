# varnish-hit: Debian Varnish with its built-in VCL (TTL from the backend's Cache-Control, requests
# with Cookie or Authorization passed), the nginx backend as its one backend, and a cache-status
# header like nginx's X-Cache-Status.
vcl 4.1;

backend default {
    .host = "${address.backend}";
    .port = "${port.backend}";
}

sub vcl_deliver {
    if (obj.hits > 0) {
        set resp.http.X-Cache-Status = "HIT";
    } else {
        set resp.http.X-Cache-Status = "MISS";
    }
}
