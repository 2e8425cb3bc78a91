import { Logger } from '@aws-lambda-powertools/logger';

/** One logger per container; level from POWERTOOLS_LOG_LEVEL, service from POWERTOOLS_SERVICE_NAME. */
export const logger = new Logger({ serviceName: 'file-service' });
