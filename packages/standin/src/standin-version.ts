/** Version of `@relax/standin`, reported in `/get_server_info`. */
export const STANDIN_VERSION = "0.1.0";
