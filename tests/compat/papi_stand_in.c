/* SPDX-License-Identifier: Apache-2.0 */
/* PAPI's low-level calls that PAPI's test library (testlib/test_utils.c) refers to, for building
 * PAPI's own high-level test programs against libperfmon-papi, which has the high-level API only:
 * tests_quiet()'s PAPI_set_debug succeeds, every other call says it is not supported here
 * (PAPI_ECMP). The high-level tests call none of the others unless they fail. */
#include <papi.h>
#include <stddef.h>

int PAPI_set_debug(int level) {
  return (void)level, PAPI_OK;
}
int PAPI_add_event(int set, int event) {
  return (void)set, (void)event, PAPI_ECMP;
}
int PAPI_add_named_event(int set, const char* name) {
  return (void)set, (void)name, PAPI_ECMP;
}
int PAPI_create_eventset(int* set) {
  return (void)set, PAPI_ECMP;
}
int PAPI_destroy_eventset(int* set) {
  return (void)set, PAPI_ECMP;
}
int PAPI_enum_cmp_event(int* code, int modifier, int component) {
  return (void)code, (void)modifier, (void)component, PAPI_ECMP;
}
int PAPI_event_code_to_name(int code, char* out) {
  return (void)code, (void)out, PAPI_ECMP;
}
int PAPI_get_event_info(int code, PAPI_event_info_t* info) {
  return (void)code, (void)info, PAPI_ECMP;
}
const PAPI_hw_info_t* PAPI_get_hardware_info(void) {
  return NULL;
}
const PAPI_component_info_t* PAPI_get_component_info(int component) {
  return (void)component, NULL;
}
int PAPI_get_cmp_opt(int option, PAPI_option_t* value, int component) {
  return (void)option, (void)value, (void)component, PAPI_ECMP;
}
int PAPI_is_initialized(void) {
  return PAPI_NOT_INITED;
}
int PAPI_list_events(int set, int* events, int* number) {
  return (void)set, (void)events, (void)number, PAPI_ECMP;
}
int PAPI_query_event(int code) {
  return (void)code, PAPI_ECMP;
}
int PAPI_remove_event(int set, int code) {
  return (void)set, (void)code, PAPI_ECMP;
}
int PAPI_num_hwctrs(void) {
  return 0;
}
void PAPI_shutdown(void) {}
char* PAPI_strerror(int code) {
  return (void)code, (char*)"not supported by libperfmon-papi's stand-in";
}

/* The Fortran test library's (testlib/ftests_util.F) low-level calls: its tests_quiet's
 * PAPIf_set_debug succeeds; the others, which the high-level tests do not call, are there to link. */
void papif_set_debug_(int* level, int* check) {
  (void)level, *check = PAPI_OK;
}
void papif_shutdown_(void) {}
void papif_event_code_to_name_(void) {}
void papif_get_hardware_info_(void) {}
void papif_list_events_(void) {}
void papif_multiplex_init_(void) {}
void papif_set_domain_(void) {}
