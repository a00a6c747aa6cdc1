// Every TestServer of the api-kube project runs the kubernetes backend (test/helpers/server.ts).
process.env.SVC_TEST_BACKEND = 'kubernetes';
